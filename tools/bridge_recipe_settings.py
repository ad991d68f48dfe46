#!/usr/bin/env python3
"""Reads NVIDIA Megatron-Bridge's performance recipes, release by release, into one table of the settings
Trainplan's validation reading needs (tests/data/validation/megatron_bridge_recipe_settings.csv).

Each NeMo container release ships a Megatron-Bridge release; its performance recipes say how every
row of the performance summary ran: the layout, CUDA graphs, recomputation, activation offload, the MoE
token dispatcher and whether its all-to-all overlaps another micro-batch's compute. This script reads them
from a local clone (`fetch github:NVIDIA-NeMo/Megatron-Bridge`) without importing Megatron-Bridge:

- r0.1.0 (25.09): scripts/performance/configs/*/*_llm_pretrain.yaml, the `perf_matrix` section;
- v0.2.0 (25.11) to v0.5.1 (26.06.01): scripts/performance/configs/*/*workload_base_configs.py, evaluated with a
  stand-in for WorkloadBaseConfig (dataclasses.replace over keyword fields);
- v0.6.0 (26.08): src/megatron/bridge/perf_recipes/<model>/<system>/*.py, each recipe function's literal
  assignments to cfg.model.* and cfg.train.* read from its syntax tree.

Settings that a release sets in code rather than in these files: the per-system config functions'
`moe_token_dispatcher_type` and tensor-parallel overlap (`CommOverlapConfig(tp_comm_overlap=...)`, and off in
NVFP4 for Llama) are read from scripts/performance/configs/*/*_llm_pretrain.py (`function_settings`); the rest
(router fusion, forced load balancing, Kimi K2's parameter gather under Muon) docs/CALIBRATION.md cites and the
validation reading applies.

Usage: tools/bridge_recipe_settings.py MEGATRON_BRIDGE_GIT_DIR [PERFORMANCE_CSV] > megatron_bridge_recipe_settings.csv

With the performance summary (tests/data/validation/nemo_megatron_bridge_performance.csv) each of its pre-training
and SFT rows gets the settings of its release's recipe for the same task, model, system and precision: the one with
the row's layout (tp, pp, cp, vp, ep, micro-batch, global batch, and Megatron-FSDP on or off) when there is one ("exact"),
else the one with it at the commit that published the release's summary ("exact at the summary's commit"), else the
newest one with it on the release's line, the commits after the previous release's tag ("exact on the release's
line (DATE)"), else the one of that model, system and precision sharing most of the layout ("settings": the
table's layout, the recipe's software settings), else the closest of another precision ("settings (another
precision)"). A row the release's line would read whose layout cells repeat the previous release's row of the same
problem while its throughput moved beyond the spread of that release pair's exact matches was measured anew on its
release's container: it gets the recipe the tag ships ("the release's recipe (...)", `carried_over`).
"""

import ast
import csv
import re
import subprocess
import sys

import yaml

# Each NeMo container release and the Megatron-Bridge tag it ships: the release whose performance summary first
# lists the container (docs/performance-summary.md at the next tag), 25.09 the r0.1.0 branch (no release tag).
RELEASES = [("r0.1.0", "25.09"), ("v0.2.0", "25.11"), ("v0.3.0", "26.02"), ("v0.3.1", "26.02.01"), ("v0.4.0", "26.04"),
            ("v0.4.1", "26.04.01"), ("v0.5.0", "26.06"), ("v0.5.1", "26.06.01"), ("v0.6.0", "26.08")]
FIELDS = ["release", "branch", "commit", "name", "model", "system", "precision", "num_gpus", "tp", "pp", "cp", "vp", "ep", "etp",
          "mbs", "gbs", "fsdp", "cuda_graph_impl", "cuda_graph_scope", "recompute_granularity", "recompute_method",
          "recompute_num_layers", "recompute_modules", "cpu_offloading_num_layers", "dispatcher", "a2a_overlap",
          "tp_comm_overlap", "fused_grouped_mlp", "fp8_attention", "pp_layout", "first_stage_layers", "last_stage_layers", "source"]
SYSTEMS = ["GB300", "GB200", "B300", "B200", "H100", "VR200", "R100"]
PRECISIONS = ["BF16", "FP8_CS", "FP8_MX", "FP8_SC", "NVFP4", "FP8"]


def git(repo, *args):
    return subprocess.run(["git", "-C", repo, *args], check=True, capture_output=True, text=True).stdout


class Workload:
    """A stand-in for WorkloadBaseConfig: its keyword fields, unknown ones kept too."""

    def __init__(self, **fields):
        self.fields = dict(fields)


def replace(base, **changes):
    merged = dict(base.fields)
    merged.update(changes)
    return Workload(**merged)


def name_parts(name):
    """Model, system and precision from a config name (LLAMA3_70B_PRETRAIN_CONFIG_GB200_FP8_CS_V1, ..._GB200_BF16_BASE_CONFIG)."""
    system = next((s for s in SYSTEMS if re.search(r"_%s(_|$)" % s, name)), "")
    precision = next((p for p in PRECISIONS if re.search(r"_%s(_|$)" % p, name)), "")
    model = re.split(r"_(PRETRAIN|SFT|LORA|FINETUNE)_|_(%s)_" % "|".join(SYSTEMS), name)[0]
    return model, system, precision


def expand_layout(text):
    """Megatron-Core's pipeline layout string ('Et*4|(t*4|)*14tmL': E embedding, t a decoder layer, m a
    multi-token-prediction layer, L the loss, | the end of a model chunk, X*n and (...)*n repetition) as the
    list of its chunks' contents."""
    def expand(s):
        out, i = "", 0
        while i < len(s):
            if s[i] == "(":
                depth, j = 1, i + 1
                while depth:
                    depth += {"(": 1, ")": -1}.get(s[j], 0)
                    j += 1
                inner, i = expand(s[i + 1:j - 1]), j
            else:
                inner, i = s[i], i + 1
            count = re.match(r"\*(\d+)", s[i:])
            if count:
                inner *= int(count.group(1))
                i += count.end()
            out += inner
        return out
    return expand(text.replace(" ", "")).split("|")


def stage_layers(layout, pp):
    """Decoder layers on the first and on the last pipeline stage of a layout (chunk i runs on stage i mod pp)."""
    chunks = expand_layout(layout)
    per_stage = [0] * pp
    for i, chunk in enumerate(chunks):
        per_stage[i % pp] += chunk.count("t")
    return per_stage[0], per_stage[-1]


def row(release, branch, commit, name, fields, source):
    model, system, precision = name_parts(name)
    get = fields.get
    layout = get("pp_layout") or get("pipeline_model_parallel_layout") or ""
    pp = int(get("pipeline_model_parallel_size", 1) or 1)
    first, last = stage_layers(layout, pp) if isinstance(layout, str) and layout and pp > 1 else ("", "")
    scope = get("cuda_graph_scope")
    modules = get("recompute_modules")
    return {
        "release": release, "branch": branch, "commit": commit, "name": name, "model": model, "system": system,
        "precision": precision, "num_gpus": get("num_gpus", ""), "tp": get("tensor_model_parallel_size", 1),
        "pp": get("pipeline_model_parallel_size", 1), "cp": get("context_parallel_size", 1),
        "vp": get("virtual_pipeline_model_parallel_size") or "", "ep": get("expert_model_parallel_size", 1),
        "etp": get("expert_tensor_parallel_size") or "", "mbs": get("micro_batch_size", 1), "gbs": get("global_batch_size", ""),
        "fsdp": bool(get("use_megatron_fsdp")), "cuda_graph_impl": get("cuda_graph_impl") or "",
        "cuda_graph_scope": " ".join(scope) if isinstance(scope, list) else (scope or ""),
        "recompute_granularity": get("recompute_granularity") or "", "recompute_method": get("recompute_method") or "",
        "recompute_num_layers": get("recompute_num_layers") or "",
        "recompute_modules": " ".join(modules) if isinstance(modules, list) else (modules or ""),
        "cpu_offloading_num_layers": get("cpu_offloading_num_layers") or "",
        "dispatcher": get("moe_flex_dispatcher_backend") or get("moe_token_dispatcher_type") or "",
        "a2a_overlap": bool(get("moe_a2a_overlap") or get("overlap_moe_expert_parallel_comm")),
        "tp_comm_overlap": "" if get("tp_comm_overlap") is None else bool(get("tp_comm_overlap")),
        "fused_grouped_mlp": bool(get("cutedsl_fused_grouped_mlp") or get("use_transformer_engine_op_fuser")),
        "fp8_attention": bool(get("fp8_dot_product_attention")),
        "pp_layout": layout if isinstance(layout, str) else "", "first_stage_layers": first, "last_stage_layers": last,
        "source": source,
    }


def function_settings(repo, branch):
    """What each performance config function of a release sets in code, keyed by (model, system): the token
    dispatcher type it sets on the model after building its recipe, `CommOverlapConfig(tp_comm_overlap=...)`
    (False only for Qwen3-235B-A22B on H100, qwen3_llm_pretrain.py at v0.2.0-v0.5.1) and the tensor-parallel
    overlap the Llama functions turn off in NVFP4 (llama3_llm_pretrain.py line 80 at v0.4.1). From v0.3.1 (26.02.01)
    `qwen3_235b_a22b_pretrain_config_h100` (and b200,
    b300 until 26.04.01) copies the base config's flex backend and then sets moe_token_dispatcher_type "alltoall"
    (scripts/performance/configs/qwen/qwen3_llm_pretrain.py at v0.3.1, lines 167-190). Megatron-Core reads the
    flex backend only with the flex dispatcher (megatron/core/transformer/moe/token_dispatcher.py), so such a
    run used the all-to-all dispatcher whatever backend the base config names."""
    types = {}
    files = [f for f in git(repo, "ls-tree", "-r", "--name-only", branch).split()
             if re.match(r"scripts/performance/configs/.*_llm_pretrain\.py$", f)]
    for path in files:
        tree = ast.parse(git(repo, "show", "%s:%s" % (branch, path)))
        for fn in tree.body:
            match = isinstance(fn, ast.FunctionDef) and (re.match(r"(.*)_pretrain_config_([a-z0-9]+)$", fn.name)
                                                         or re.match(r"(.*)_([a-z0-9]+)_config$", fn.name))
            if not match:
                continue
            key = (match.group(1).upper(), match.group(2).upper())
            for node in ast.walk(fn):
                if (isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Attribute)
                        and node.targets[0].attr == "moe_token_dispatcher_type" and isinstance(literal(node.value), str)):
                    types.setdefault(key, {})["dispatcher"] = literal(node.value)
                # `cfg.comm_overlap.tp_comm_overlap = False if precision == "nvfp4" else ...` (the Llama and
                # GPT-OSS config functions on Blackwell, v0.2.0 to v0.5.1): no tensor-parallel overlap in NVFP4.
                if (isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Attribute)
                        and node.targets[0].attr == "tp_comm_overlap" and isinstance(node.value, ast.IfExp)
                        and literal(node.value.body) is False and isinstance(node.value.test, ast.Compare)
                        and len(node.value.test.comparators) == 1 and literal(node.value.test.comparators[0]) == "nvfp4"):
                    types.setdefault(key, {})["tp_comm_overlap_off"] = "NVFP4"
                if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "CommOverlapConfig":
                    for kw in node.keywords:
                        if kw.arg == "tp_comm_overlap" and isinstance(literal(kw.value), bool):
                            types.setdefault(key, {})["tp_comm_overlap"] = literal(kw.value)
    return types


def workload_rows(repo, release, branch, commit):
    types = function_settings(repo, branch)
    files = [f for f in git(repo, "ls-tree", "-r", "--name-only", branch).split()
             if re.match(r"scripts/performance/configs/.*workload_base_configs\.py$", f)]
    for path in files:
        scope = {"WorkloadBaseConfig": Workload, "replace": replace}
        text = git(repo, "show", "%s:%s" % (branch, path))
        text = re.sub(r"^from .* import .*$", "", text, flags=re.M)
        exec(compile(text, path, "exec"), scope)
        for name, value in scope.items():
            if isinstance(value, Workload) and not name.startswith("BASE_") and name_parts(name)[1]:
                r = row(release, branch, commit, name, value.fields, "%s@%s" % (path, commit[:12]))
                code = types.get((r["model"], r["system"]), {})
                if code.get("dispatcher") == "alltoall":
                    r["dispatcher"] = "alltoall"
                if "tp_comm_overlap" in code:
                    r["tp_comm_overlap"] = code["tp_comm_overlap"]
                if code.get("tp_comm_overlap_off") == r["precision"]:
                    r["tp_comm_overlap"] = False
                yield r


def run_script_settings(model, system):
    """What r0.1.0's scripts/performance/run_script.py sets in code beside the YAML: DeepSeek-V3 runs DeepEP
    and the 1F1B-overlapped expert all-to-all on H100 (enable_deepep, A2A_1F1B) and recomputes mla_up_proj
    and mlp there, mla_up_proj on B200 and on GB200 with token drop (its B200/GB200 rows drop tokens)."""
    if model != "DEEPSEEK_V3":
        return {}
    if system == "H100":
        return {"moe_token_dispatcher_type": "deepep", "moe_a2a_overlap": True, "recompute_modules": ["mla_up_proj", "mlp"]}
    return {"recompute_modules": ["mla_up_proj"]}


def yaml_rows(repo, release, branch, commit):
    files = [f for f in git(repo, "ls-tree", "-r", "--name-only", branch).split()
             if re.match(r"scripts/performance/configs/.*_llm_pretrain\.yaml$", f)]
    keys = {"tp": "tensor_model_parallel_size", "pp": "pipeline_model_parallel_size", "cp": "context_parallel_size",
            "vp": "virtual_pipeline_model_parallel_size", "ep": "expert_model_parallel_size", "etp": "expert_tensor_parallel_size",
            "mbs": "micro_batch_size", "gbs": "global_batch_size", "use_megatron_fsdp": "use_megatron_fsdp"}
    for path in files:
        doc = yaml.safe_load(git(repo, "show", "%s:%s" % (branch, path)))
        model = path.rsplit("/", 1)[1].replace("_llm_pretrain.yaml", "").upper()
        for system, sizes in (doc.get("perf_matrix") or {}).items():
            for size, entry in sizes.items():
                common = entry.get("common") or {}
                for precision, extra in entry.items():
                    if precision == "common":
                        continue
                    merged = dict(common)
                    merged.update(extra or {})
                    fields = {keys.get(k, k): v for k, v in merged.items()}
                    fields["num_gpus"] = int(size.split("_")[-1])
                    if merged.get("cuda_graphs"):
                        fields["cuda_graph_impl"] = "cuda_graphs: true"
                    name = "%s_PRETRAIN_CONFIG_%s_%s" % (model, system.upper(), precision.upper())
                    fields.update(run_script_settings(model, system.upper()))
                    yield row(release, branch, commit, name, fields, "%s@%s" % (path, commit[:12]))


def literal(node):
    try:
        return ast.literal_eval(node)
    except ValueError:
        return None


def call_bindings(helper, call, outer):
    """A helper's parameters as one call binds them: the call's literal keywords over the defaults."""
    bound = {}
    a = helper.args
    positional = a.args[len(a.args) - len(a.defaults):] if a.defaults else []
    for arg, default in list(zip(positional, a.defaults)) + list(zip(a.kwonlyargs, a.kw_defaults)):
        if default is not None:
            bound[arg.arg] = literal(default)
    for kw in call.keywords:
        if kw.arg is None:
            continue
        if isinstance(kw.value, ast.Name) and kw.value.id in outer:
            bound[kw.arg] = outer[kw.value.id]
        else:
            bound[kw.arg] = literal(kw.value)
    return bound


def assignments(fn, helpers, depth=0, bound=None, context=None):
    """The literal settings a recipe function makes, in order, with those of the helpers it calls on cfg
    (the model's common.py and perf_recipes/_common.py) applied where it calls them; a helper's setting
    from one of its parameters takes the value the call passes (or the parameter's default)."""
    bound = bound or {}
    context = context or {}
    fields = {}
    # Assignments under `if <name> == "none":` (perf_recipes/_common.py _benchmark_common at v0.6.0: `if cuda_impl ==
    # "none": cfg.model.cuda_graph_scope = []`): taken only when the graph implementation read so far is none.
    when_no_graphs = set()
    for stmt in fn.body:
        if (isinstance(stmt, ast.If) and isinstance(stmt.test, ast.Compare) and len(stmt.test.comparators) == 1
                and literal(stmt.test.comparators[0]) == "none"):
            when_no_graphs.update(id(n) for n in ast.walk(stmt) if isinstance(n, ast.Assign))
    for stmt in fn.body:
        for node in ast.walk(stmt):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in helpers and depth < 4:
                helper = helpers[node.func.id]
                fields.update(assignments(helper, helpers, depth + 1, call_bindings(helper, node, bound), dict(context, **fields)))
            # Megatron-Bridge's utils/cuda_graph.py helpers (v0.6.0): set_cuda_graph_modules(cfg.model, [...]) sets the
            # per-layer graph scope, clear_cuda_graph_modules(cfg.model) clears it.
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "set_cuda_graph_modules" \
                    and len(node.args) > 1 and isinstance(literal(node.args[1]), list):
                fields["cuda_graph_scope"] = literal(node.args[1])
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "clear_cuda_graph_modules":
                fields["cuda_graph_scope"] = []
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id.endswith("pipeline_model_parallel_layout")
                    and len(node.args) > 1 and isinstance(literal(node.args[1]), str)):
                fields["pipeline_model_parallel_layout"] = literal(node.args[1])
            if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Attribute):
                target = node.targets[0]
                # `cfg.comm_overlap = CommOverlapConfig(tp_comm_overlap=..., overlap_moe_expert_parallel_comm=...)`
                # replaces the whole overlap configuration: its literal keywords are the recipe's settings (v0.6.0
                # perf_recipes/qwen/common.py `_enable_hybridep_full_iteration_mxfp8`).
                if (target.attr == "comm_overlap" and isinstance(node.value, ast.Call)
                        and getattr(node.value.func, "id", None) == "CommOverlapConfig"):
                    for kw in node.value.keywords:
                        if kw.arg is not None:
                            value = bound.get(kw.value.id) if isinstance(kw.value, ast.Name) else literal(kw.value)
                            if value is not None:
                                fields[kw.arg] = value
                    continue
                if id(node) in when_no_graphs and fields.get("cuda_graph_impl", context.get("cuda_graph_impl")) not in (None, "", "none"):
                    continue
                if isinstance(target.value, ast.Attribute) and target.value.attr in ("model", "train", "ddp", "comm_overlap", "mixed_precision"):
                    if isinstance(node.value, ast.Name) and node.value.id in bound:
                        fields[target.attr] = bound[node.value.id]
                        continue
                    value = literal(node.value)
                    if value is not None or isinstance(node.value, ast.Constant):
                        fields[target.attr] = value
    return fields


def perf_recipe_rows(repo, release, branch, commit):
    files = [f for f in git(repo, "ls-tree", "-r", "--name-only", branch).split()
             if re.match(r"src/megatron/bridge/perf_recipes/[^/]+/[^/]+/[^/]+\.py$", f) and not f.endswith("__init__.py")]
    helpers = {}
    for common in ["src/megatron/bridge/perf_recipes/_common.py"] + sorted({re.sub(r"/[^/]+/[^/]+\.py$", "/common.py", f) for f in files}):
        try:
            tree = ast.parse(git(repo, "show", "%s:%s" % (branch, common)))
        except subprocess.CalledProcessError:
            continue
        helpers[common] = {fn.name: fn for fn in tree.body if isinstance(fn, ast.FunctionDef)}
    for path in files:
        tree = ast.parse(git(repo, "show", "%s:%s" % (branch, path)))
        local = dict(helpers["src/megatron/bridge/perf_recipes/_common.py"])
        local.update(helpers.get(re.sub(r"/[^/]+/[^/]+\.py$", "/common.py", path), {}))
        for fn in tree.body:
            match = isinstance(fn, ast.FunctionDef) and re.match(r"(.*)_pretrain_(\d+)gpu_([a-z0-9]+)_([a-z0-9]+)_config$", fn.name)
            if not match:
                continue
            fields = {"num_gpus": int(match.group(2))}
            fields.update(assignments(fn, local))
            precision = {"bf16": "BF16", "fp8cs": "FP8_CS", "fp8mx": "FP8_MX", "nvfp4": "NVFP4", "fp8sc": "FP8_SC"}.get(match.group(4), match.group(4).upper())
            name = "%s_PRETRAIN_CONFIG_%s_%s" % (match.group(1).upper(), match.group(3).upper(), precision)
            yield row(release, branch, commit, name, fields, "%s:%s@%s" % (path, fn.name, commit[:12]))


def summary_commit(repo, release):
    """The commit that first published the release's section of the performance summary ("## 26.04.01 NeMo
    Container" in docs/performance-summary*.md), on whichever branch: the recipes as they stood when NVIDIA
    published the release's numbers."""
    commits = git(repo, "log", "--all", "--format=%H", "--reverse", "-S## %s NeMo Container" % release, "--",
                  "docs/performance-summary.md", "docs/performance-summary-archive.md").split()
    return commits[0] if commits else None


def recipes_at(repo, release, ref):
    commit = git(repo, "rev-parse", ref + "^{commit}").strip()
    files = git(repo, "ls-tree", "-r", "--name-only", ref)
    reader = (yaml_rows if "_llm_pretrain.yaml" in files
              else perf_recipe_rows if "src/megatron/bridge/perf_recipes/" in files else workload_rows)
    for r in reader(repo, release, ref, commit):
        r["branch"] = ref
        yield r


def line_recipes(repo, release):
    """The recipes at each commit of the release's line that touched them, newest first: the commits the release's
    tag has and the previous release's has not (all of r0.1.0's for the first) up to the publication of the
    release's summary, as (commit date, recipes) pairs. A row whose printed layout neither the tag's nor the
    summary's recipes have ran a recipe of the day that a later commit of the line changed before the tag; the
    newest one with that layout is the best record of it."""
    refs = [ref for ref, _ in RELEASES]
    i = [rel for _, rel in RELEASES].index(release)
    span = refs[i] if i == 0 else "%s..%s" % (refs[i - 1], refs[i])
    # Not after the summary was published: a recipe changed later cannot have produced its numbers.
    published = summary_commit(repo, release)
    until = ["--until=" + git(repo, "log", "-1", "--format=%cI", published).strip()] if published else []
    for line in git(repo, "log", "--format=%H %ad", "--date=short", *until, span, "--", "scripts/performance",
                    "src/megatron/bridge/perf_recipes").split("\n"):
        if not line:
            continue
        commit, date = line.split()
        try:
            recipes = list(recipes_at(repo, release, commit))
        except (subprocess.CalledProcessError, SyntaxError, NameError, TypeError, KeyError, AttributeError):
            continue  # a commit whose configs this reader cannot evaluate (renamed helpers, half-done refactors)
        for r in recipes:
            r["branch"] = refs[i]
        yield date, recipes


def recipe_rows(repo):
    """Each release's recipes at its tag, and (marked `at_summary`) at the commit that published its summary."""
    for ref, release in RELEASES:
        yield from recipes_at(repo, release, ref)
        published = summary_commit(repo, release)
        if published:
            for r in recipes_at(repo, release, published):
                r["at_summary"] = True
                yield r


MODELS = {"LLAMA3_8B": "LLAMA3_8B", "LLAMA3_70B": "LLAMA3_70B", "LLAMA3.1_405B": "LLAMA31_405B", "DeepSeekV3": "DEEPSEEK_V3",
          "Qwen3_235B_a22B": "QWEN3_235B_A22B", "Qwen3_30B_a3B": "QWEN3_30B_A3B", "GPT OSS 120B": "GPT_OSS_120B", "Kimi_K2": "KIMI_K2",
          "Nemotron_3_Nano": "NEMOTRON_3_NANO", "Nemotron_3_Super": "NEMOTRON_3_SUPER"}


def table_precisions(text, system):
    """The recipe precisions a performance-summary cell may name."""
    if text == "BF16":
        return ["BF16"]
    if text in ("MXFP8", "FP8-MX"):
        return ["FP8_MX"]
    if text == "NVFP4":
        return ["NVFP4"]
    if text == "FP8-CS":
        return ["FP8_CS"]
    if "block-scaled" in text:
        return ["FP8_SC"] if system == "H100" else ["FP8_MX"]
    return ["FP8_CS", "FP8_SC", "FP8"]


def layout(r, keys):
    def n(v):
        return str(v) if str(v) not in ("", "n/a", "None", "NA") else "1"
    return tuple(n(r[k]) for k in keys[:-1]) + (str(r[keys[-1]]),)


def uses_fsdp(value):
    """Megatron-FSDP as the summary prints it (0/1, or the sharding group's size in the archive) or a recipe sets it."""
    return str(value) not in ("", "0", "n/a", "False", "None")


LAYOUT_KEYS = ["tp", "pp", "cp", "vp", "ep", "mbs", "gbs"]


def same_layout(r, b):
    return layout(r, LAYOUT_KEYS) == layout(b, LAYOUT_KEYS) and uses_fsdp(r["fsdp"]) == uses_fsdp(b["fsdp"])


def previous_printing(table, b):
    """The previous release's row of the same problem (model as printed, system, precision, GPU count) when it
    prints the same layout cells as `b`, else None."""
    releases = [rel for _, rel in RELEASES]
    if b["release"] not in releases or releases.index(b["release"]) == 0:
        return None
    before = releases[releases.index(b["release"]) - 1]
    return next((p for p in table if p["release"] == before and all(p[k] == b[k] for k in
                 ("task", "model", "system", "precision", "num_gpus")) and same_layout(p, b)), None)


def throughput_ratio(b, p):
    return float(b["tokens_per_s_per_gpu"].split()[0]) / float(p["tokens_per_s_per_gpu"].split()[0])


def carried_over(table, exact_ids, b):
    """Whether `b`'s layout cells were carried over from the previous release's row while its throughput was
    measured anew. A row whose printed layout no recipe of its release's tag or summary's commit has, and whose
    cells repeat the previous release's row of the same problem, either repeats that row (copied: the old
    recipe ran) or was measured again on its release's container. Which one the throughput says: the rows of the
    same two releases that print the same cells and match their own release's recipe exactly move by a spread
    (26.02 to 26.02.01: 30 such pairs within 0.98-1.08x); a row that moves beyond it was measured again, on the
    recipe its release ships. Returns (previous row, ratio) then, else None."""
    p = previous_printing(table, b)
    if p is None:
        return None
    spread = [throughput_ratio(c, q) for c in table if c["release"] == b["release"] and c["row_id"] in exact_ids
              for q in [previous_printing(table, c)] if q is not None]
    ratio = throughput_ratio(b, p)
    if len(spread) < 5 or min(spread) <= ratio <= max(spread):
        return None
    return p, ratio


def matched_rows(recipes, performance_csv, repo=None):
    keys = LAYOUT_KEYS
    lines = {}
    table = [b for b in csv.DictReader(open(performance_csv)) if b["task"] in ("Pre-Training", "SFT")]

    def same_task(r, b):
        """A pre-training row takes a pre-training recipe, an SFT row an SFT one (LLAMA3_70B_SFT_CONFIG_*)."""
        return ("SFT" in r["name"]) == (b["task"] == "SFT") and "LORA" not in r["name"]

    def recipes_of(b, published):
        model = next((v for k, v in MODELS.items() if b["model"].startswith(k)), None)
        system = b["system"].replace("DGX-", "")
        return [r for r in recipes if r["release"] == b["release"] and r["model"] == model and r["system"] == system
                and bool(r.get("at_summary")) == published and same_task(r, b)]

    def tag_candidates(b):
        system = b["system"].replace("DGX-", "")
        return [r for r in recipes_of(b, False) if r["precision"] in table_precisions(b["precision"], system)]

    exact_ids = {b["row_id"] for b in table if any(same_layout(r, b) for r in tag_candidates(b))}

    for b in table:
        model = next((v for k, v in MODELS.items() if b["model"].startswith(k)), None)
        if not model:
            continue
        system = b["system"].replace("DGX-", "")
        release = b["release"]
        same = recipes_of(b, False)
        candidates = tag_candidates(b)
        exact = [r for r in candidates if same_layout(r, b)]
        # No recipe of the row's layout at the release's tag: the recipe of that layout when NVIDIA published the
        # release's numbers (the summary's commit; the performance team runs the recipes of the day), else the
        # newest of the release's line with it, else the tag's recipe of the precision that shares most of the
        # row's layout (the release's software settings, the table's layout); with no recipe of that precision,
        # the closest of another.
        published = [r for r in recipes_of(b, True) if r["precision"] in table_precisions(b["precision"], system)
                     and same_layout(r, b)]
        # Neither: the newest recipe of the release's line with the row's layout (line_recipes).
        on_line = []
        if not exact and not published and repo:
            if release not in lines:
                lines[release] = list(line_recipes(repo, release))
            for date, line in lines[release]:
                on_line = [dict(r, line_date=date) for r in line
                           if r["model"] == model and r["system"] == system and same_task(r, b)
                           and r["precision"] in table_precisions(b["precision"], system)
                           and same_layout(r, b)]
                if on_line:
                    break
        closest = sorted(candidates or same, key=lambda r: -sum(x == y for x, y in zip(layout(r, keys), layout(b, keys))))
        # A layout found only on the release's line, printed as the previous release printed it, and measured
        # anew (carried_over): the release's own recipe of the problem ran, the one its tag ships.
        shipped = [r for r in candidates if str(r["num_gpus"]) == b["num_gpus"]]
        moved = carried_over(table, exact_ids, b) if on_line and len(shipped) == 1 else None
        chosen = shipped[0] if moved else (exact or published or on_line or closest or [None])[0]
        if chosen:
            match = ("exact" if exact else "exact at the summary's commit" if published
                     else "the release's recipe (cells as %s printed them, throughput %.2fx: measured anew)"
                     % (moved[0]["release"], moved[1]) if moved
                     else "exact on the release's line (%s)" % chosen["line_date"] if on_line
                     else "settings" if candidates else "settings (another precision)")
            yield dict(chosen, row_id=b["row_id"], match=match)


def main():
    repo = sys.argv[1]
    recipes = list(recipe_rows(repo))
    rows = list(matched_rows(recipes, sys.argv[2], repo)) if len(sys.argv) > 2 else recipes
    fields = (["row_id", "match"] if len(sys.argv) > 2 else []) + FIELDS
    out = csv.DictWriter(sys.stdout, fieldnames=fields, lineterminator="\n", extrasaction="ignore")
    out.writeheader()
    for r in rows:
        out.writerow(r)


if __name__ == "__main__":
    main()
