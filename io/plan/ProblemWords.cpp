#include "io/plan/ProblemWords.h"

#include <QCoreApplication>

#include <algorithm>
#include <iterator>

namespace trainplan::io {

namespace {

QString ruleWords(const char *sourceText)
{
    return QCoreApplication::translate("Problem", sourceText);
}

/// One rule's sentence: %1..%9 stand for the problem's values in order; "{nearby}" marks where the
/// suggestion of nearby valid values goes when there is one (at the end when the sentence has no mark).
struct RuleSentence
{
    const char *rule;
    const char *sentence;
};

const RuleSentence kSentences[] = {
    // core/plan/PlanKeys: a single key's value
    {"text.too_long", QT_TRANSLATE_NOOP("Problem", "must be at most %1 characters long (got %2)")},
    {"choice.unknown", QT_TRANSLATE_NOOP("Problem", "unknown value \"%1\" (expected one of %2)")},
    {"value.whole_number", QT_TRANSLATE_NOOP("Problem", "must be a whole number")},
    {"value.finite_number", QT_TRANSLATE_NOOP("Problem", "must be a finite number")},
    {"value.true_or_false", QT_TRANSLATE_NOOP("Problem", "must be true or false")},
    {"value.array", QT_TRANSLATE_NOOP("Problem", "is an array")},
    {"value.integer_list",
     QT_TRANSLATE_NOOP("Problem", "must be whole numbers separated by commas, one per pipeline stage (got \"%1\")")},
    {"list.range", QT_TRANSLATE_NOOP("Problem", "each entry must be %2 to %3 (got %1)")},
    // core/plan/PlanValidation: the model
    {"heads.divide_hidden", QT_TRANSLATE_NOOP("Problem", "Attention heads (%1) must divide the hidden size (%2) so "
                                                         "every head has a whole dimension, or set model.head_dim")},
    {"kv_heads.divide_heads",
     QT_TRANSLATE_NOOP("Problem",
                       "Key/value heads (%1) must divide the attention heads (%2) so query heads group evenly")},
    {"experts_per_token.range",
     QT_TRANSLATE_NOOP(
         "Problem",
         "Experts per token (%1) must be 1 to the number of experts (%2): each token goes to top-k of them")},
    {"dense_layers.fewer",
     QT_TRANSLATE_NOOP("Problem",
                       "Dense first layers (%1) must be fewer than the layers (%2) of a mixture-of-experts model")},
    {"moe_latent_size.needs_experts",
     QT_TRANSLATE_NOOP("Problem", "A MoE latent width (%1) needs routed experts: set model.experts or the width to 0")},
    {"moe_latent_size.framework",
     QT_TRANSLATE_NOOP("Problem", "Latent MoE layers are Megatron-Core's (moe_latent_size; %1 has none): set "
                                  "training.framework to megatron or the width to 0")},
    {"moe_latent_size.not_narrower",
     QT_TRANSLATE_NOOP("Problem", "The MoE latent width (%1) is not below the hidden size (%2): the experts and the "
                                  "all-to-all work on rows at least as wide as without it, and the two projections "
                                  "add their GEMMs")},
    {"mtp_repeated.needs_mtp",
     QT_TRANSLATE_NOOP("Problem", "A repeated multi-token-prediction module needs multi-token prediction: set "
                                  "model.mtp_layers or turn model.mtp_repeated off")},
    {"router_groups.together",
     QT_TRANSLATE_NOOP(
         "Problem", "Router groups (%1) and groups per token (%2) are set together: group-limited routing needs both")},
    {"router_groups.divide_experts",
     QT_TRANSLATE_NOOP("Problem",
                       "Router groups (%1) must divide model.experts (%2): the groups are contiguous and equal")},
    {"router_group_topk.hold_experts",
     QT_TRANSLATE_NOOP("Problem", "Groups per token (%1) must be at most the router groups (%2) and hold the %3 "
                                  "experts per token (%4 per group)")},
    {"mla.needs_size",
     QT_TRANSLATE_NOOP("Problem", "Multi-head latent attention (model.attention \"mla\") needs %1 above 0")},
    {"sliding_window.needs_flash",
     QT_TRANSLATE_NOOP("Problem", "a sliding window shortens attention only with training.flash_attention; unfused, "
                                  "every score of the sequence is computed and then masked")},
    {"attention_kernel.head_size",
     QT_TRANSLATE_NOOP("Problem", "training.attention_kernel \"%1\" runs heads of at most %2 dimensions; this model's "
                                  "are %3: choose \"fused\" or a smaller model.head_dim")},
    {"attention_kernel.sinks",
     QT_TRANSLATE_NOOP("Problem", "training.attention_kernel \"%1\" has no attention sinks (model.attention_sinks): "
                                  "FlashAttention kernels take no learned softmax offset; choose \"fused\" (cuDNN's "
                                  "kernel, as Transformer Engine runs sinks) or training.flash_attention false")},
    {"full_attention_interval.needs_window",
     QT_TRANSLATE_NOOP("Problem", "model.full_attention_interval has no effect without model.sliding_window")},
    {"bf16_layers.needs_low_precision",
     QT_TRANSLATE_NOOP("Problem", "BF16 layers at the start or end take layers out of a FP8 or FP4 format under "
                                  "Megatron-Core; with training.precision \"%1\" and framework \"%2\" they have no "
                                  "effect")},
    {"bf16_modules.needs_low_precision",
     QT_TRANSLATE_NOOP("Problem", "a module kept in BF16 is kept out of a FP8 or FP4 format; with training.precision "
                                  "\"%1\" every module computes in 16 bits or more already")},
    {"bf16_layers.delayed",
     QT_TRANSLATE_NOOP("Problem", "Megatron-Core keeps no layers in BF16 with delayed FP8 scaling "
                                  "(training.fp8_recipe \"delayed\"): choose \"tensorwise\" or set both counts to 0")},
    {"bf16_layers.per_stage",
     QT_TRANSLATE_NOOP("Problem", "%1 layers in BF16 is more than a pipeline stage's share of the layers (%2): "
                                  "Megatron-Core allows at most the model's layers over the pipeline stages")},
    {"activation_clamp.needs_gated",
     QT_TRANSLATE_NOOP("Problem", "model.activation_clamp clamps the two halves of a gated activation's input; it has "
                                  "no effect unless model.mlp is \"swiglu\"")},
    // core/plan/Plan completeEdit: what an edit of the experts brings along
    {"experts.top2_default",
     QT_TRANSLATE_NOOP("Problem", "experts per token set to %1 (top-2 routing, as Mixtral routes): a mixture of "
                                  "experts needs each token routed to at least one")},
    {"experts.none_routed", QT_TRANSLATE_NOOP("Problem", "experts per token set to 0: a dense model routes no tokens")},
    // the layout
    {"tensor_comm_overlap.needs_sequence_parallel",
     QT_TRANSLATE_NOOP("Problem",
                       "Tensor-parallel overlap needs training.sequence_parallel: it overlaps the all-gathers and "
                       "reduce-scatters that sequence parallelism turns the all-reduces into")},
    {"tensor_comm_overlap.lost_to_queues",
     QT_TRANSLATE_NOOP("Problem",
                       "Tensor-parallel overlap hides nothing here: on %1 Megatron-Core runs a collective beside the "
                       "GEMM after it only with one hardware queue per GPU (CUDA_DEVICE_MAX_CONNECTIONS=1), and %2 "
                       "needs more (Megatron-Bridge's performance scripts set 8 or 32); the estimate counts the "
                       "tensor-parallel collectives as exposed. Turn one of the two off, or plan on Blackwell, which "
                       "overlaps with any number of queues")},
    {"context.divides_sequence",
     QT_TRANSLATE_NOOP("Problem", "Context parallel (%1) needs model.seq_len (%2) divisible by 2 x context = %3: "
                                  "causal load balancing gives each rank two of 2 x context equal chunks")},
    {"context_comm.all_to_all_heads",
     QT_TRANSLATE_NOOP(
         "Problem",
         "The all-to-all exchange needs model.heads (%1) and model.kv_heads (%2) divisible by tensor x context = %3: "
         "each rank computes whole heads over the full sequence; use \"ring\" or \"all-gather\"")},
    {"expert.needs_moe",
     QT_TRANSLATE_NOOP("Problem", "Expert parallel (%1) needs a mixture-of-experts model: model.experts is 0")},
    {"expert.divides_experts",
     QT_TRANSLATE_NOOP("Problem",
                       "Expert parallel (%1) must divide model.experts (%2): each rank holds whole experts")},
    {"expert_tensor.divides_width",
     QT_TRANSLATE_NOOP("Problem", "Expert tensor parallel (%1) must divide the expert MLP width (%2)")},
    {"expert.tiles_ranks",
     QT_TRANSLATE_NOOP("Problem", "Expert parallel x expert tensor parallel (%1 x %2) must divide data x context x "
                                  "tensor (%3): the expert groups tile the ranks of one pipeline stage")},
    {"stages.uneven_needs_pipeline",
     QT_TRANSLATE_NOOP("Problem", "First and last stage layers split a pipeline: they need pipeline stages of 2 or "
                                  "more (got %1); set them to 0")},
    {"stages.uneven_interleaved",
     QT_TRANSLATE_NOOP(
         "Problem",
         "With %1 virtual stages an uneven split needs the middle stages' layers (%2) divisible by %1 and the first "
         "and last stages at least %3 layers each (one chunk may give its slot to the embedding or the loss)")},
    {"stages.list_needs_pipeline",
     QT_TRANSLATE_NOOP("Problem", "Layers per stage list a pipeline's stages: it needs pipeline stages of 2 or more "
                                  "(got %1); clear the list")},
    {"stages.list_length",
     QT_TRANSLATE_NOOP("Problem", "Layers per stage lists %1 stages; the pipeline has %2: give one entry per stage")},
    {"stages.list_sum",
     QT_TRANSLATE_NOOP("Problem", "Layers per stage add up to %1; the model has %2 layers")},
    {"stages.list_chunks",
     QT_TRANSLATE_NOOP("Problem", "With %1 virtual stages every stage needs at least %1 layers, one per model chunk "
                                  "(stage %2 holds %3)")},
    {"stages.list_with_first_last",
     QT_TRANSLATE_NOOP("Problem", "Layers per stage and First/Last stage layers both split the pipeline: keep one "
                                  "(set first and last stage layers to 0, or clear the list)")},
    {"stages.uneven_split",
     QT_TRANSLATE_NOOP("Problem", "First stage layers (%1) and last stage layers (%2) must leave the %3 layers' rest "
                                  "to the other %4 stages in equal whole shares of at least one layer")},
    {"pipeline.divides_layers", QT_TRANSLATE_NOOP("Problem", "Pipeline stages (%1) must divide the %2 layers evenly")},
    {"pipeline.divides_layers_or_uneven",
     QT_TRANSLATE_NOOP("Problem", "Pipeline stages (%1) must divide the %2 layers evenly{nearby}; or split them "
                                  "unevenly with First/Last stage layers or Layers per stage")},
    {"pipeline.virtual_divides_layers",
     QT_TRANSLATE_NOOP(
         "Problem", "Pipeline stages x %3 virtual stages (%1 x %3 virtual stages) must divide the %2 layers evenly")},
    {"virtual_stages.need_interleaved",
     QT_TRANSLATE_NOOP("Problem", "Virtual stages above 1 need the interleaved schedule (Schedule: interleaved 1F1B)")},
    {"schedule.interleaved_one_stage",
     QT_TRANSLATE_NOOP("Problem", "the interleaved schedule with a single pipeline stage behaves like no pipeline")},
    {"schedule.zero_bubble_framework",
     QT_TRANSLATE_NOOP("Problem", "the zero-bubble schedule (zb-h1) is not part of %1: it needs Qi et al.'s "
                                  "Megatron-LM fork, or PyTorch's pipelining (framework \"fsdp\")")},
    {"schedule.zero_bubble_h2_framework",
     QT_TRANSLATE_NOOP("Problem", "the zero-bubble schedule with 2p micro-batches in flight (zb-h2) runs only in Qi "
                                  "et al.'s Megatron-LM fork (its ZB-2p: --enable-zero-bubble with "
                                  "--zero-bubble-max-pending-backward at twice the pipeline stages)")},
    {"zero2.with_pipeline",
     QT_TRANSLATE_NOOP("Problem",
                       "ZeRO stage %1 cannot be combined with pipeline stages (%2): each stage would reduce-scatter "
                       "its gradients again for every micro-batch in flight; DeepSpeed and Megatron-LM refuse it. Use "
                       "ZeRO stage 1 with pipeline parallelism, pipeline stages 1, or framework \"fsdp\" (PyTorch's "
                       "pipelining runs FSDP2 inside each stage, as torchtitan does)")},
    {"zero3.with_pipeline",
     QT_TRANSLATE_NOOP("Problem",
                       "ZeRO stage %1 cannot be combined with pipeline stages (%2): each stage would gather its "
                       "parameters again for every micro-batch in flight; DeepSpeed and Megatron-LM refuse it. Use "
                       "ZeRO stage 1 with pipeline parallelism, pipeline stages 1, or framework \"fsdp\" (PyTorch's "
                       "pipelining runs FSDP2 inside each stage, as torchtitan does)")},
    {"batch.multiple",
     QT_TRANSLATE_NOOP("Problem",
                       "Global batch (%1) must be a multiple of micro-batch x data-parallel replicas = %2 x %3 = %4")},
    {"batch.interleaved_microbatches",
     QT_TRANSLATE_NOOP("Problem", "the interleaved schedule needs the micro-batch count of a run (%1 = global "
                                  "batch / (micro-batch x data parallel), or training.schedule_microbatches) to be a "
                                  "multiple of the pipeline stages (%2)")},
    {"schedule_runs.framework",
     QT_TRANSLATE_NOOP("Problem", "Schedule micro-batches (%1) splits a step into runs of PyTorch's pipelining; "
                                  "framework \"%2\" runs every micro-batch of a step in one schedule: set it to 0, "
                                  "or framework \"fsdp\"")},
    {"schedule_runs.divide",
     QT_TRANSLATE_NOOP("Problem", "Schedule micro-batches (%1) must divide the step's micro-batches (%2 = global "
                                  "batch / (micro-batch x data parallel)): each run of the schedule takes as many")},
    {"data.derived",
     QT_TRANSLATE_NOOP("Problem", "Data parallel must be GPUs / (tensor x pipeline) = %1 / (%2 x %3) = %5 (got %6)")},
    {"data.derived_with_context",
     QT_TRANSLATE_NOOP(
         "Problem", "Data parallel must be GPUs / (tensor x pipeline x context) = %1 / (%2 x %3 x %4) = %5 (got %6)")},
    {"gpus.split", QT_TRANSLATE_NOOP("Problem", "Tensor parallel x pipeline stages (%1 x %2) must divide the %4 GPUs "
                                                "(%5 nodes x %6) into whole data-parallel replicas")},
    {"gpus.split_with_context",
     QT_TRANSLATE_NOOP("Problem", "Tensor parallel x pipeline stages x context parallel (%1 x %2 x %3) must divide the "
                                  "%4 GPUs (%5 nodes x %6) into whole data-parallel replicas")},
    {"optimizer.muon_framework",
     QT_TRANSLATE_NOOP("Problem", "training.optimizer \"%2\" is modelled as Megatron-Core runs it (its layer-wise "
                                  "distributed optimizer); framework \"%1\"'s Muon is not: set training.framework "
                                  "to \"megatron\" or training.optimizer to \"adam\"")},
    {"optimizer.muon_zero",
     QT_TRANSLATE_NOOP("Problem", "training.optimizer \"%2\": Megatron-LM's Muon supports neither Megatron-FSDP nor "
                                  "Torch-FSDP2 (arguments.py, emerging optimizer check); set parallel.zero_stage to 0 "
                                  "or 1 (got %1)")},
    {"offload.fraction_needs_megatron",
     QT_TRANSLATE_NOOP("Problem", "parallel.optimizer_offload_fraction %1: only Megatron-Core's CPU optimizer steps "
                                  "part of a shard on the host; framework \"%2\" offloads all of it: set it to 1 "
                                  "or training.framework to \"megatron\"")},
    {"optimizer.muon_offload",
     QT_TRANSLATE_NOOP("Problem", "parallel.offload_optimizer: Megatron-Core's CPU optimizer steps Adam or SGD; its "
                                  "%1 keeps the optimizer's state on the GPU: turn parallel.offload_optimizer off "
                                  "or set training.optimizer to \"adam\"")},
    {"fp8_recipe.rowwise_torchao",
     QT_TRANSLATE_NOOP("Problem", "training.fp8_recipe \"rowwise\" is torchao's float8 recipe (torchtitan, FSDP2); "
                                  "framework \"%1\" scales FP8 per tensor: set training.fp8_recipe to \"delayed\" "
                                  "or \"tensorwise\", training.precision to \"fp8-blockwise\" for per-block scales, "
                                  "or training.framework to \"fsdp\"")},
    {"fp8_param_gather.rowwise",
     QT_TRANSLATE_NOOP("Problem", "training.fp8_param_gather: torchao all-gathers FSDP's parameters in float8 only "
                                  "with tensorwise scaling; set it to false with the rowwise recipe, or "
                                  "training.fp8_recipe to \"tensorwise\"")},
    {"rank_order.megatron_only",
     QT_TRANSLATE_NOOP("Problem", "parallel.rank_order \"tp-cp-ep-pp-dp\" is Megatron-LM's --use-tp-pp-dp-mapping; "
                                  "framework \"%1\" puts the pipeline stages outermost: set parallel.rank_order to "
                                  "\"tp-cp-ep-dp-pp\" or training.framework to \"megatron\"")},
    {"rank_order.megatron_fsdp",
     QT_TRANSLATE_NOOP("Problem", "parallel.rank_order \"tp-cp-ep-pp-dp\" is not supported with Megatron-FSDP "
                                  "(parallel.zero_stage 3 under framework \"megatron\"): set the rank order to "
                                  "\"tp-cp-ep-dp-pp\" or ZeRO stage 0-2")},
    {"rank_order.expert_data",
     QT_TRANSLATE_NOOP("Problem", "parallel.rank_order \"tp-cp-ep-pp-dp\" with pipeline stages needs the experts' "
                                  "data ranks to be the attention's: parallel.expert x parallel.expert_tensor (%1 x "
                                  "%2) must equal parallel.tensor x parallel.context (%3 x %4), as Megatron-Core "
                                  "asserts")},
    {"shard_group.needs_fsdp",
     QT_TRANSLATE_NOOP("Problem", "Hybrid sharding (parallel.shard_group) is FSDP2's or Megatron-Core's distributed "
                                  "optimizer's or DeepSpeed's MiCS: set training.framework to \"fsdp\", to "
                                  "\"megatron\" with ZeRO stage 1 or to \"deepspeed\" with ZeRO stage 3, or remove "
                                  "parallel.shard_group")},
    {"offload.parameters_need_zero3",
     QT_TRANSLATE_NOOP("Problem",
                       "Parameter offload keeps ZeRO-3's parameter shards on the host: it needs ZeRO stage 3 "
                       "under DeepSpeed or FSDP (got stage %1 under %2)")},
    {"shard_group.divides_ranks",
     QT_TRANSLATE_NOOP("Problem", "Shard group (%1) must be at least 2 and divide the %2 data x context ranks")},
    {"zero_plus_plus.needs_deepspeed_zero3",
     QT_TRANSLATE_NOOP("Problem", "ZeRO++ (%1) is DeepSpeed's ZeRO-3 option: set training.framework to \"deepspeed\" "
                                  "with ZeRO stage 3, or turn it off")},
    {"zero_hpz_partition.divides_ranks",
     QT_TRANSLATE_NOOP("Problem", "hpZ's secondary partition (%1) must divide the %2 ranks ZeRO-3 shards over and be "
                                  "fewer than them (1 turns it off)")},
    {"shard_group.all_ranks",
     QT_TRANSLATE_NOOP("Problem", "a shard group of all %1 data x context ranks shards over every one of them: nothing "
                                  "is replicated")},
    {"expert_comm_overlap.one_microbatch",
     QT_TRANSLATE_NOOP("Problem", "the all-to-all overlap runs one micro-batch's forward beside another's backward: "
                                  "with one micro-batch per step it hides nothing")},
    // training and software
    {"document_length.at_most_sequence",
     QT_TRANSLATE_NOOP("Problem", "training.document_length (%1) must be at most model.seq_len (%2)")},
    {"document_length.needs_flash",
     QT_TRANSLATE_NOOP("Problem",
                       "packed documents shorten attention only with training.flash_attention (variable-length masks); "
                       "without it the masked scores of the whole sequence are still computed")},
    {"recompute_layers.needs_full",
     QT_TRANSLATE_NOOP("Problem", "training.recompute_layers applies to full recomputation (training.recompute "
                                  "\"full\"); it is ignored otherwise")},
    {"recompute_interval.needs_full",
     QT_TRANSLATE_NOOP("Problem", "training.recompute_interval checkpoints every k-th layer with full recomputation "
                                  "(training.recompute \"full\"); it is ignored otherwise")},
    {"recompute_interval.with_layers",
     QT_TRANSLATE_NOOP("Problem", "training.recompute_interval and training.recompute_layers both choose the "
                                  "recomputed layers: the interval is used")},
    {"recompute_chunk.needs_full",
     QT_TRANSLATE_NOOP("Problem", "training.recompute_chunk checkpoints chunks of layers with full recomputation "
                                  "(training.recompute \"full\"); it is ignored otherwise")},
    {"recompute_chunk.with_layers",
     QT_TRANSLATE_NOOP("Problem", "training.recompute_chunk is Megatron-Core's uniform method and "
                                  "training.recompute_layers or training.recompute_interval choose the recomputed "
                                  "layers another way: the chunk is ignored")},
    {"activation_offload_layers.beyond_stage",
     QT_TRANSLATE_NOOP("Problem",
                       "more offloaded layers (%1) than a stage holds (%2): every layer of a stage is offloaded")},
    {"compile.megatron",
     QT_TRANSLATE_NOOP(
         "Problem", "Megatron-Core does not torch.compile its layers; its fused kernels are training.fused_kernels")},
    {"recompute.ops_megatron",
     QT_TRANSLATE_NOOP("Problem",
                       "op-level selective checkpointing (\"ops\") is torchtitan's (PyTorch's selective activation "
                       "checkpointing); Megatron-Core's selective recomputation is \"selective\"")},
    {"master_weights.ignored",
     QT_TRANSLATE_NOOP("Problem", "with %1 the parameters are stored in 32 bits and are their own master copy: "
                                  "training.master_weights is ignored")},
    {"fused_expert_mlp.not_mxfp8",
     QT_TRANSLATE_NOOP("Problem", "Transformer Engine's fused grouped MLP runs MXFP8 (Megatron-Bridge enables it with "
                                  "its MXFP8 recipes); with %1 its fusion is assumed all the same")},
    {"recompute_module.needs_selective",
     QT_TRANSLATE_NOOP("Problem", "%1 needs training.recompute \"selective\" (it names a module of selective "
                                  "recomputation; \"full\" already recomputes the whole layer)")},
    {"recompute_attention.needs_ops",
     QT_TRANSLATE_NOOP("Problem", "training.recompute_attention names what op-level checkpointing leaves out of its "
                                  "save list: it needs training.recompute \"ops\"")},
    {"recompute_module.needs_mla",
     QT_TRANSLATE_NOOP("Problem", "%1 needs multi-head latent attention (model.attention \"mla\")")},
    {"recompute_module.needs_moe", QT_TRANSLATE_NOOP("Problem", "%1 needs a mixture of experts (model.experts > 0)")},
    {"framework.fsdp_needs_zero3",
     QT_TRANSLATE_NOOP("Problem", "Framework \"fsdp\" shards parameters, gradients and optimizer state: it needs ZeRO "
                                  "stage 3 (got %1); set ZeRO stage to 3, or choose \"megatron\" or \"deepspeed\"")},
    {"expert_comm_overlap.needs_expert",
     QT_TRANSLATE_NOOP("Problem", "Megatron-Core overlaps the expert all-to-all only with expert parallelism "
                                  "(transformer_config.py): set parallel.expert above 1 or turn the overlap off")},
    {"expert_comm_overlap.needs_virtual_stages",
     QT_TRANSLATE_NOOP("Problem", "With %1 pipeline stages Megatron-Core overlaps the expert all-to-all only in the "
                                  "interleaved schedule (transformer_config.py): set parallel.virtual_stages above 1 "
                                  "or turn the overlap off")},
    {"expert_comm_overlap.full_recompute",
     QT_TRANSLATE_NOOP("Problem", "Megatron-Core refuses the expert all-to-all overlap with full recomputation "
                                  "(transformer_config.py): recompute selectively or not at all, or turn the overlap "
                                  "off")},
    {"expert_comm_overlap.moe_recompute",
     QT_TRANSLATE_NOOP("Problem", "Megatron-Core refuses the expert all-to-all overlap with the MoE layer recomputed "
                                  "(transformer_config.py): turn off training.recompute_moe or the overlap")},
    {"expert_comm_overlap.mtp_layers",
     QT_TRANSLATE_NOOP("Problem", "Megatron-Core overlaps the expert all-to-all with at most one MTP layer (the model "
                                  "has %1; transformer_config.py): turn the overlap off")},
    {"expert_comm_overlap.hybrid",
     QT_TRANSLATE_NOOP("Problem", "Megatron-Core overlaps the expert all-to-all with another micro-batch only in GPT "
                                  "models: its overlapped schedule needs a schedule plan, which the hybrid "
                                  "Mamba-Transformer model does not build (combined_1f1b.py): turn the overlap off")},
    {"cuda_graphs.full_recompute",
     QT_TRANSLATE_NOOP("Problem", "Megatron-Core's per-layer CUDA graphs (%1) refuse full recomputation "
                                  "(transformer_config.py: \"full recompute is only supported with full iteration CUDA "
                                  "graph\"): graph the whole step, recompute selectively, or turn the graphs off")},
    {"cuda_graphs.megatron_fsdp",
     QT_TRANSLATE_NOOP("Problem", "Megatron-Core's per-layer CUDA graphs (%1) do not capture a layer under "
                                  "Megatron-FSDP (ZeRO-3), whose hooks gather and free each layer's parameters "
                                  "(Megatron-Bridge's FSDP recipes turn the graphs off): graph the whole step, turn "
                                  "the graphs off, or shard less (parallel.zero_stage below 3)")},
    {"cuda_graphs.framework",
     QT_TRANSLATE_NOOP("Problem", "CUDA graphs \"%1\" are Megatron-Core's (--cuda-graph-impl, --cuda-graph-scope); "
                                  "framework \"%2\" captures no such graph (torchtitan graphs a whole step: "
                                  "\"step\" under framework \"fsdp\"): set training.cuda_graphs to \"none\"")},
    {"cuda_graphs.fsdp_pipeline",
     QT_TRANSLATE_NOOP("Problem", "torchtitan's step graph refuses pipeline parallelism (trainer.py: \"CUDA graphs do "
                                  "not support pipeline parallelism yet\"), here %1 stages: set training.cuda_graphs "
                                  "to \"none\" or parallel.pipeline to 1")},
    {"cuda_graphs.fsdp_dispatcher",
     QT_TRANSLATE_NOOP("Problem", "torchtitan graphs a step with expert parallelism only through a dispatcher that "
                                  "never waits on the host (HybridEP with a fixed capacity, trainer.py "
                                  "_validate_cuda_graphs); the %1 dispatcher waits for each layer's token counts: "
                                  "set parallel.expert_dispatcher to \"hybridep\" with training.capacity_factor, or "
                                  "training.cuda_graphs to \"none\"")},
    {"cuda_graphs.step_dynamic_experts",
     QT_TRANSLATE_NOOP("Problem", "Megatron-Core captures a whole step only at fixed shapes; dropless MoE layers "
                                  "behind the %1 dispatcher wait for each layer's token counts and are uncapturable "
                                  "(moe/README.md): set training.capacity_factor (dropping and padding to it), or "
                                  "parallel.expert_dispatcher to \"hybridep\" (its rank capacity), or "
                                  "training.cuda_graphs to \"layers\" or \"none\"")},
    {"hybrid_pattern.symbols",
     QT_TRANSLATE_NOOP("Problem", "A hybrid layer pattern holds one of M (Mamba-2), * (attention), - (dense MLP) or E "
                                  "(MoE MLP) per layer, as Megatron-Core's --hybrid-override-pattern; \"%1\" at "
                                  "position %2 is none of them")},
    {"hybrid_pattern.length",
     QT_TRANSLATE_NOOP("Problem", "The hybrid layer pattern has %1 symbols and the model %2 layers: one symbol per "
                                  "layer (set model.layers to the pattern's length)")},
    {"hybrid_pattern.needs_experts",
     QT_TRANSLATE_NOOP("Problem", "The hybrid layer pattern has MoE layers (E) and the model no experts: set "
                                  "model.experts and model.experts_per_token, or write - for a dense MLP")},
    {"hybrid_pattern.experts_unplaced",
     QT_TRANSLATE_NOOP("Problem", "The model has %1 experts and its hybrid layer pattern no MoE layer (E) to hold "
                                  "them: place them with E, or set model.experts to 0")},
    {"hybrid_pattern.moe_placement",
     QT_TRANSLATE_NOOP("Problem", "A hybrid layer pattern places the MoE layers itself (E): model.dense_layers and "
                                  "model.moe_layer_interval are ignored")},
    {"hybrid_pattern.framework",
     QT_TRANSLATE_NOOP("Problem", "Hybrid Mamba-Transformer models are planned as Megatron-Core's MambaModel runs "
                                  "them (pretrain_mamba.py); framework \"%1\" is not modelled for them: set "
                                  "training.framework to \"megatron\"")},
    {"hybrid_pattern.zero3",
     QT_TRANSLATE_NOOP("Problem", "ZeRO-3 (Megatron-FSDP) of a hybrid Mamba-Transformer model is not modelled: "
                                  "set parallel.zero_stage to 1 or 2")},
    {"hybrid_pattern.context",
     QT_TRANSLATE_NOOP("Problem", "Context parallelism of a hybrid model runs Megatron-Core's all-to-all of Mamba "
                                  "heads, which is not modelled; context %1: set parallel.context to 1")},
    {"hybrid_pattern.schedule",
     QT_TRANSLATE_NOOP("Problem", "The %1 schedule defers each layer's weight gradients; a Mamba-2 block's are not "
                                  "modelled: choose 1f1b, interleaved or gpipe")},
    {"hybrid_pattern.recompute",
     QT_TRANSLATE_NOOP("Problem", "A hybrid model is recomputed here block by block, all of them (full) or by "
                                  "module (selective); op-level checkpointing and recomputing only some layers "
                                  "(recompute_layers, recompute_interval, recompute_chunk) are not modelled for it")},
    {"hybrid_pattern.offload",
     QT_TRANSLATE_NOOP("Problem", "Activation offload of a hybrid model's blocks is not modelled (%1 offloaded "
                                  "layers): set training.activation_offload_layers to 0")},
    {"hybrid_pattern.muon",
     QT_TRANSLATE_NOOP("Problem", "Muon's orthogonalised updates of a Mamba-2 mixer's projections are not modelled: "
                                  "choose another training.optimizer for a hybrid model")},
    {"hybrid_pattern.mla",
     QT_TRANSLATE_NOOP("Problem", "The attention blocks of a hybrid model are planned as grouped-query attention "
                                  "(Nemotron-H's); multi-head latent attention in them is not modelled: set "
                                  "model.attention to \"mha\"")},
    {"mamba_heads.positive",
     QT_TRANSLATE_NOOP("Problem", "The Mamba-2 mixer needs heads: set model.mamba_heads, or a model.mamba_head_dim "
                                  "of at most twice the hidden size")},
    {"mamba_groups.divide_heads",
     QT_TRANSLATE_NOOP("Problem", "Mamba-2's %1 groups must divide its %2 heads (Megatron-Core: \"nheads must be "
                                  "evenly divisible by ngroups\")")},
    {"mamba.tensor",
     QT_TRANSLATE_NOOP("Problem", "Tensor parallelism %1 must divide the Mamba-2 mixer's %2 heads and %3 groups "
                                  "(Megatron-Core splits both over the tensor ranks)")},
    {"moe_paged_stash.not_moe",
     QT_TRANSLATE_NOOP("Problem", "Paged stashing keeps the routed experts' saved tensors; a dense model has none: "
                                  "training.moe_paged_stash is ignored")},
    {"moe_paged_stash.framework",
     QT_TRANSLATE_NOOP("Problem", "Paged stashing of the routed experts' saved tensors is Megatron-Core's "
                                  "(--moe-paged-stash); framework \"%1\" does not run it: turn "
                                  "training.moe_paged_stash off")},
    {"moe_paged_stash.dispatcher",
     QT_TRANSLATE_NOOP("Problem", "Paged stashing needs a rank capacity factor, which Megatron-Core gives only the "
                                  "HybridEP dispatcher; the %1 dispatcher has none: set parallel.expert_dispatcher "
                                  "to \"hybridep\" or turn training.moe_paged_stash off")},
    {"moe_paged_stash.needs_fused_mlp",
     QT_TRANSLATE_NOOP("Problem", "Paged stashing takes the tensors Transformer Engine's fused grouped MLP keeps "
                                  "(its op fuser, which Megatron-Core's rank capacity factor requires): turn "
                                  "training.fused_expert_mlp on, or training.moe_paged_stash off")},
    {"moe_paged_stash.activation_offload",
     QT_TRANSLATE_NOOP("Problem", "Megatron-Core refuses paged stashing with activation offload (\"moe_paged_stash "
                                  "cannot be enabled with cpu_offloading\"), here %1 offloaded layers: set "
                                  "training.activation_offload_layers to 0 or turn training.moe_paged_stash off")},
    {"expert_comm_overlap.framework",
     QT_TRANSLATE_NOOP("Problem", "The expert all-to-all overlap is Megatron-Core's combined 1F1B schedule "
                                  "(--overlap-moe-expert-parallel-comm); framework \"%1\" does not run it: turn "
                                  "parallel.expert_comm_overlap off")},
    {"defer_wgrad.framework",
     QT_TRANSLATE_NOOP("Problem", "Deferring the output layer's weight gradients to the pipeline drain is "
                                  "Megatron-Core's (--defer-embedding-wgrad-compute); framework \"%1\" does not: "
                                  "turn training.defer_embedding_wgrad off")},
    {"defer_wgrad.needs_pipeline",
     QT_TRANSLATE_NOOP("Problem", "Deferred output-layer weight gradients fill the last stage's pipeline drain; "
                                  "without pipeline stages Megatron-Core refuses them (\"Cannot defer embedding "
                                  "wgrad compute when pipeline model parallel is not used\"): turn "
                                  "training.defer_embedding_wgrad off, or use pipeline stages")},
    {"defer_wgrad.fsdp",
     QT_TRANSLATE_NOOP("Problem", "Deferred output-layer weight gradients do not run with Megatron-FSDP (ZeRO stage "
                                  "3): NeMo's and Megatron-Bridge's scripts turn them off, \"it cannot work with "
                                  "FSDP together\"; turn training.defer_embedding_wgrad off, or use ZeRO stage 1")},
    {"cuda_graphs.activation_offload",
     QT_TRANSLATE_NOOP("Problem", "Megatron-Core's per-layer CUDA graphs (%1) refuse activation offloading "
                                  "(transformer_config.py: \"CUDA graphs not supported with CPU offloading\"): graph "
                                  "the whole step, or set training.activation_offload_layers to 0")},
    {"offload.fp8_gather_needs_delayed",
     QT_TRANSLATE_NOOP("Problem",
                       "Megatron-LM offloads the optimizer with FP8 parameter gathers only under the delayed FP8 "
                       "recipe (arguments.py), not with %1: turn off training.fp8_param_gather or the offload")},
    {"low_precision.needed", QT_TRANSLATE_NOOP("Problem", "%1 needs a low-precision format (training.precision fp8, "
                                                          "fp8-blockwise, mxfp8 or nvfp4); the plan trains in %2")},
    // the cluster
    {"precision.unsupported",
     QT_TRANSLATE_NOOP("Problem", "%1 is not supported by %2: it has no %3 tensor cores; it runs %4")},
    {"device.unknown",
     QT_TRANSLATE_NOOP("Problem", "unknown device \"%1\" (not in the device catalog or the plan's custom_devices)")},
    {"link.unknown", QT_TRANSLATE_NOOP("Problem", "unknown intra-node link \"%1\" (see the cluster catalog)")},
    {"network.unknown", QT_TRANSLATE_NOOP("Problem", "unknown network tier \"%1\" (see the cluster catalog)")},
    {"scale_up.whole_nodes", QT_TRANSLATE_NOOP("Problem", "Scale-up domain (%1 GPUs) must be whole nodes of %2 GPUs")},
    {"custom_devices.too_many", QT_TRANSLATE_NOOP("Problem", "at most %1 custom devices (got %2)")},
    {"custom_device.builtin_id",
     QT_TRANSLATE_NOOP("Problem", "\"%1\" is a built-in device id; give the custom device its own id")},
    {"custom_device.duplicate_id",
     QT_TRANSLATE_NOOP("Problem",
                       "\"%1\" is also the id of cluster.custom_devices[%2]; each custom device needs its own id")},
    {"node_groups.too_many",
     QT_TRANSLATE_NOOP("Problem", "at most %1 node groups (got %2); merge groups of the same kind")},
    {"node_group.gpus_per_node",
     QT_TRANSLATE_NOOP("Problem", "every node group must have the same GPUs per node as the first (%1 vs %2): the rank "
                                  "order places groups by whole nodes")},
    {"nodes.sum_of_groups",
     QT_TRANSLATE_NOOP(
         "Problem",
         "must equal the sum of node_groups[].nodes (%1), with gpus_per_node and device those of node_groups[0]")},
    // core/profile/TraceProfile: a profiler trace held against the plan
    {"trace.no_kernels_on_device", QT_TRANSLATE_NOOP("Problem", "the trace has no kernels on device %1")},
    {"trace.unclassified_kernels",
     QT_TRANSLATE_NOOP("Problem",
                       "%1 kernel names no rule classifies (%2% of kernel time), counted as unclassified: %3")},
    {"trace.no_kernels", QT_TRANSLATE_NOOP("Problem", "the trace has no GPU kernels (was CUDA activity profiled?)")},
    {"trace.no_step_markers",
     QT_TRANSLATE_NOOP("Problem",
                       "the trace has no ProfilerStep markers: it is taken as one step (say how many with --steps)")},
    // core/search/Search: a search space too large to search
    {"search.too_many_plans",
     QT_TRANSLATE_NOOP(
         "Problem",
         "the search space has more than %1 plans; narrow the node range or fix tensor, pipeline or micro-batch")},
    {"search.too_many_plans_moe",
     QT_TRANSLATE_NOOP("Problem", "the search space has more than %1 plans; narrow the node range or fix tensor, "
                                  "pipeline, micro-batch or expert")},
    {"search.too_slow",
     QT_TRANSLATE_NOOP("Problem", "the search space of %1 plans would take about %2 s on one core (at most %3 s); "
                                  "narrow the node range or fix tensor, pipeline or micro-batch")},
    {"search.too_slow_moe",
     QT_TRANSLATE_NOOP("Problem", "the search space of %1 plans would take about %2 s on one core (at most %3 s); "
                                  "narrow the node range or fix tensor, pipeline, micro-batch or expert")},
};

/// `sentence` with %1..%9 replaced by the values, in one pass (a value holding "%2" stays as it is).
QString substitute(const QString &sentence, const std::vector<std::string> &values)
{
    QString out;
    out.reserve(sentence.size() + 16 * qsizetype(values.size()));
    for (qsizetype i = 0; i < sentence.size(); ++i) {
        const QChar c = sentence[i];
        if (c == u'%' && i + 1 < sentence.size() && sentence[i + 1] >= u'1' && sentence[i + 1] <= u'9') {
            const auto index = std::size_t(sentence[i + 1].unicode() - u'1');
            out += index < values.size() ? QString::fromStdString(values[index]) : QString();
            ++i;
        } else {
            out += c;
        }
    }
    return out;
}

/// "4", "4 or 8", "2, 4 or 8".
QString listOfNumbers(const std::vector<std::int64_t> &numbers)
{
    QString out;
    for (std::size_t i = 0; i < numbers.size(); ++i) {
        if (i > 0)
            out += i + 1 == numbers.size() ? ruleWords(" or ") : QStringLiteral(", ");
        out += QString::number(numbers[i]);
    }
    return out;
}

/// "; valid stage counts nearby: 2, 4 or 8" ("" without values). The noun follows the key the values are for.
QString nearbySuggestion(const Problem &p)
{
    if (p.nearby.empty())
        return {};
    const char *noun = p.key == "parallel.pipeline"       ? QT_TRANSLATE_NOOP("Problem", "stage counts")
                       : p.key == "model.heads"           ? QT_TRANSLATE_NOOP("Problem", "head counts")
                       : p.key == "model.kv_heads"        ? QT_TRANSLATE_NOOP("Problem", "key/value heads")
                       : p.key == "training.global_batch" ? QT_TRANSLATE_NOOP("Problem", "global batches")
                                                          : QT_TRANSLATE_NOOP("Problem", "values");
    return ruleWords("; valid %1 nearby: %2").arg(ruleWords(noun), listOfNumbers(p.nearby));
}

QString value(const Problem &p, std::size_t i)
{
    return i < p.values.size() ? QString::fromStdString(p.values[i]) : QString();
}

/// A range from its kind and bounds (core/plan/PlanKeys rangeValues).
QString rangeFrom(const QString &kind, const QString &lo, const QString &hi)
{
    if (kind == u"at_least")
        return ruleWords("at least %1").arg(lo);
    if (kind == u"greater_than")
        return ruleWords("greater than %1").arg(lo);
    if (kind == u"whole_number")
        return ruleWords("a whole number from %1 to %2").arg(lo, hi);
    if (kind.size() == 2)
        return ruleWords("in %1%2, %3%4").arg(kind.left(1), lo, hi, kind.right(1));
    return {};
}

/// "must be a whole number from 1 to 2^40 GPUs (got 0)": values are the value, its unit, and the range.
QString rangeSentence(const Problem &p)
{
    const QString unit = value(p, 1);
    return ruleWords("must be %1%2 (got %3)")
        .arg(rangeFrom(value(p, 2), value(p, 3), value(p, 4)), unit.isEmpty() ? QString() : u' ' + unit, value(p, 0));
}

/// "Tensor parallel (7) must divide the 96 attention heads and the MLP width 1000: ...": values are the
/// tensor size, then the heads, key/value heads and MLP width it breaks ("" for one it keeps).
QString tensorSentence(const Problem &p)
{
    QStringList parts;
    if (!value(p, 1).isEmpty())
        parts << ruleWords("%1 attention heads").arg(value(p, 1));
    if (!value(p, 2).isEmpty())
        parts << ruleWords("%1 key/value heads").arg(value(p, 2));
    if (!value(p, 3).isEmpty())
        parts << ruleWords("the MLP width %1").arg(value(p, 3));
    QString broken = parts.value(0);
    for (qsizetype i = 1; i < parts.size(); ++i)
        broken += (i + 1 == parts.size() ? ruleWords(" and ") : QStringLiteral(", ")) + parts[i];
    return ruleWords("Tensor parallel (%1) must divide the %2: each rank holds whole heads and MLP columns")
        .arg(value(p, 0), broken);
}

/// "compared device 0 only; the trace also has devices 1 (20 kernels), 2 (30 kernels)": values are the device
/// compared, then each other device and its kernel count.
QString otherDevicesSentence(const Problem &p)
{
    QStringList others;
    for (std::size_t i = 1; i + 1 < p.values.size(); i += 2)
        others << ruleWords("%1 (%2 kernels)").arg(value(p, i), value(p, i + 1));
    return ruleWords("compared device %1 only; the trace also has devices %2").arg(value(p, 0), others.join(u", "));
}

/// The rules worded by code rather than one sentence: a value's range, the tensor size's broken parts, the
/// trace's other devices.
struct ComposedRule
{
    const char *rule;
    QString (*compose)(const Problem &);
};
const ComposedRule kComposedRules[] = {
    {"range", rangeSentence}, {"tensor.divides_model", tensorSentence}, {"trace.other_devices", otherDevicesSentence}};

QString ruleSentence(const Problem &p)
{
    for (const ComposedRule &c : kComposedRules)
        if (p.rule == c.rule)
            return c.compose(p) + nearbySuggestion(p);
    const auto *found = std::find_if(std::begin(kSentences), std::end(kSentences),
                                     [&](const RuleSentence &s) { return p.rule == s.rule; });
    if (found == std::end(kSentences)) { // a rule without words here: its id and values, never a blank
        QStringList values;
        for (const std::string &v : p.values)
            values << QString::fromStdString(v);
        return values.isEmpty() ? QString::fromStdString(p.rule)
                                : QStringLiteral("%1 (%2)").arg(QString::fromStdString(p.rule), values.join(u", "));
    }
    QString sentence = substitute(ruleWords(found->sentence), p.values);
    const QString nearby = nearbySuggestion(p);
    const QString mark = QStringLiteral("{nearby}");
    if (sentence.contains(mark))
        return sentence.replace(mark, nearby);
    return sentence + nearby;
}

} // namespace

QString problemText(const Problem &problem)
{
    if (problem.rule.empty())
        return QString::fromStdString(problem.words);
    return ruleSentence(problem);
}

std::string problemMessage(const Problem &problem)
{
    return problemText(problem).toStdString();
}

QString problemLine(const Problem &problem)
{
    QString out = problem.severity == Severity::Warning ? ruleWords("warning: ") : QString();
    if (!problem.key.empty())
        out += QString::fromStdString(problem.key) + QStringLiteral(": ");
    return out + problemText(problem);
}

QString rangeWords(const PlanKey &key)
{
    const std::vector<std::string> range = rangeValues(key);
    if (range.size() < 2)
        return {};
    return rangeFrom(QString::fromStdString(range[0]), QString::fromStdString(range[1]),
                     range.size() > 2 ? QString::fromStdString(range[2]) : QString());
}

std::vector<std::string_view> wordedRules()
{
    std::vector<std::string_view> out;
    for (const ComposedRule &c : kComposedRules)
        out.emplace_back(c.rule);
    for (const RuleSentence &s : kSentences)
        out.emplace_back(s.rule);
    return out;
}

} // namespace trainplan::io
