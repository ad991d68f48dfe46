#!/usr/bin/env python3
"""Seeded random plans that vary every plan key, for tools/refactor-guard.sh.

Writes N plan files to OUTDIR. Plans are drawn so that most validate (layouts divide the GPU count,
batches divide); the guard keeps whatever the binary accepts and also records the rejections, so both
the estimates and the validation messages are compared before and after a refactoring.
"""
import json
import random
import sys

PRESETS = ["gpt2-small", "gpt3-175b", "megatron-1t", "llama2-7b", "llama3-8b", "llama3-70b", "llama3.1-405b"]
DEVICES = ["v100-sxm2-32gb", "a100-sxm4-40gb", "a100-sxm4-80gb", "h100-sxm5-80gb", "h200-sxm-141gb", "b200", "mi300x"]
LINKS = ["", "nvlink2", "nvlink3-nvswitch", "nvlink4-nvswitch", "nvlink5-nvswitch", "infinity-fabric", "pcie4-x16", "pcie5-x16"]
NETWORKS = ["", "ib-ndr", "ib-hdr", "ib-edr", "roce-400", "roce-200", "ethernet-100-node", "ethernet-25-node"]
TEMPLATES = ["", "DGX H100", "DGX A100"]


def pow2(rng, top):
    return 1 << rng.randrange(top)


def random_plan(rng, index):
    plan = {"format": "trainplan-plan", "version": 1, "name": "guard plan %d" % index}
    if rng.random() < 0.6:
        model = {"preset": rng.choice(PRESETS)}
        if rng.random() < 0.3:
            model["seq_len"] = rng.choice([512, 1024, 2048, 4096, 8192])
        if rng.random() < 0.2:
            model["dropout"] = rng.random() < 0.5
        layers, heads, kv, ffn = None, None, None, None
    else:
        heads = rng.choice([8, 16, 32, 64])
        hidden = heads * rng.choice([64, 96, 128])
        kv = rng.choice([h for h in [1, 2, 4, 8, heads] if heads % h == 0])
        mlp = rng.choice(["gelu", "swiglu"])
        model = {"name": "custom %d" % index, "layers": rng.choice([4, 8, 12, 16, 24, 32, 48, 64]), "hidden": hidden,
                 "heads": heads, "kv_heads": kv, "ffn_hidden": hidden * rng.choice([2, 3, 4]),
                 "vocab": rng.choice([32000, 50257, 50304, 128256]), "seq_len": rng.choice([512, 1024, 2048, 4096]),
                 "mlp": mlp, "tied_embeddings": rng.random() < 0.5}
        if rng.random() < 0.5:
            model["norm"] = rng.choice(["layernorm", "rmsnorm"])
        if rng.random() < 0.5:
            model["linear_bias"] = rng.random() < 0.5
        if rng.random() < 0.5:
            model["position_embedding"] = rng.choice(["learned", "rotary"])
        if rng.random() < 0.5:
            model["dropout"] = rng.random() < 0.5
    plan["model"] = model

    gpus_per_node = rng.choice([4, 8, 8, 8])
    nodes = pow2(rng, 7)
    gpus = gpus_per_node * nodes
    tensor = min(pow2(rng, 4), gpus)
    pipeline = min(pow2(rng, 4), gpus // tensor)
    data = gpus // (tensor * pipeline)
    micro = pow2(rng, 3)
    schedule = rng.choice(["gpipe", "1f1b", "interleaved", "zb-h1"])
    virtual = 2 if schedule == "interleaved" and rng.random() < 0.5 else 1
    m = pipeline * rng.choice([1, 2, 4, 8])
    plan["training"] = {
        "global_batch": micro * data * m,
        "micro_batch": micro,
        "precision": rng.choice(["fp32", "tf32", "fp16", "bf16", "bf16", "fp8"]),
        "optimizer": rng.choice(["adam", "sgd"]),
        "recompute": rng.choice(["none", "selective", "full"]),
        "sequence_parallel": rng.random() < 0.5,
        "flash_attention": rng.random() < 0.5,
        "fp32_gradients": rng.random() < 0.3,
        "allocator_reserve_fraction": rng.choice([0.0, 0.05, 0.1]),
        "fused_kernels": rng.random() < 0.7,
        "padding_fraction": rng.choice([0.0, 0.0, 0.1]),
    }
    parallel = {"tensor": tensor, "pipeline": pipeline, "virtual_stages": virtual, "schedule": schedule,
                "zero_stage": rng.randrange(4), "offload_optimizer": rng.random() < 0.15,
                "bucket_bytes": rng.choice([25e6, 50e6, 200e6]), "overlap_grad_reduce": rng.random() < 0.7}
    if rng.random() < 0.7:
        parallel["data"] = data
    plan["parallel"] = parallel

    device = rng.choice(DEVICES)
    cluster = {"device": device, "gpus_per_node": gpus_per_node, "nodes": nodes}
    link = rng.choice(LINKS)
    if link:
        cluster["intra_node_link"] = link
    network = rng.choice(NETWORKS)
    if network:
        cluster["network"] = network
    for key, values in [("intra_node_bandwidth", [150e9, 450e9]), ("intra_node_latency", [2e-6, 5e-6]),
                        ("network_bandwidth", [12.5e9, 50e9]), ("network_latency", [5e-6, 1e-5]),
                        ("runtime_context_bytes", [0.5e9, 2e9])]:
        if rng.random() < 0.15:
            cluster[key] = rng.choice(values)
    if nodes >= 2 and rng.random() < 0.25:
        first = nodes // 2
        other = rng.choice(DEVICES)
        cluster["node_groups"] = [
            {"template": rng.choice(TEMPLATES), "device": device, "gpus_per_node": gpus_per_node, "nodes": first},
            {"device": other, "gpus_per_node": gpus_per_node, "nodes": nodes - first,
             "intra_node_link": rng.choice(LINKS[1:])},
        ]
        if not cluster["node_groups"][0]["template"]:
            del cluster["node_groups"][0]["template"]
    if rng.random() < 0.1:
        cluster["custom_devices"] = [{
            "id": "guard-gpu", "name": "Guard GPU", "source": "refactor guard",
            "peak_flops": {"fp32": 60e12, "tf32": 400e12, "fp16": 800e12, "bf16": 800e12, "fp8": 1600e12},
            "memory_bytes": 96e9, "memory_bandwidth": 3e12, "intra_node_bandwidth": 400e9,
            "network_bandwidth": 50e9, "runtime_context_bytes": 1e9, "board_power_watts": 700,
            "matmul_efficiency": {"max": 0.8, "half_flops": 2e9}, "memory_efficiency": {"max": 0.85, "half_bytes": 2e6},
            "attention_efficiency": 0.7, "intra_node_latency": 3e-6, "network_latency": 8e-6,
            "intra_node_efficiency": 0.8, "network_efficiency": 0.85, "host_link_bandwidth": 50e9}]
        cluster["device"] = "guard-gpu"
        cluster.pop("node_groups", None)
    plan["cluster"] = cluster
    if rng.random() < 0.6:
        plan["run"] = {"token_budget": rng.choice([1e11, 3e11, 1.5e13]), "price_per_gpu_hour": rng.choice([0, 2, 3.5]),
                       "checkpoint_bandwidth": rng.choice([5e9, 20e9, 100e9]), "sharded_checkpoint": rng.random() < 0.5,
                       "gpu_mtbf_hours": rng.choice([10000, 50000]), "restart_seconds": rng.choice([60, 600])}
    return plan


def main():
    outdir, count, seed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    rng = random.Random(seed)
    for i in range(count):
        with open("%s/plan-%03d.json" % (outdir, i), "w") as f:
            json.dump(random_plan(rng, i), f, indent=1)


if __name__ == "__main__":
    main()
