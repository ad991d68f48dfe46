#include "io/interop/TorchtitanNames.h"

namespace trainplan::io::torchtitan {

namespace {

const std::vector<Name> &table()
{
    // torchtitan's JobConfig (job_config.py; the older config_manager.py spells the micro-batch batch_size).
    static const std::vector<Name> rows{
        {"training.local_batch_size", "training.micro_batch", Form::Integer},
        {"training.batch_size", "training.micro_batch", Form::Integer},
        {"training.global_batch_size", "training.global_batch", Form::Integer},
        {"training.seq_len", "model.seq_len", Form::Integer},
        {"training.mixed_precision_param",
         "training.precision",
         Form::Choice,
         {{"bfloat16", "bf16"}, {"float32", "fp32"}, {"float16", "fp16"}}},
        // FSDP's reduce-scatter dtype; "float32" is torchtitan's one choice and default at every release
        // (config_manager.py lines 389-396 at 9dec370, config/configs.py line 102 at b5bcd76).
        {"training.mixed_precision_reduce", "training.fp32_gradients", Form::Choice, {{"float32", "true"}}},
        {"parallelism.tensor_parallel_degree", "parallel.tensor", Form::Integer},
        {"parallelism.pipeline_parallel_degree", "parallel.pipeline", Form::Integer},
        {"parallelism.context_parallel_degree", "parallel.context", Form::Integer},
        // How the context ranks exchange K and V (job_config.py before 9810191bb, context_parallel_rotate_method,
        // default "allgather": "all-gather all kv shards on ranks after the first sub-SDPA computation";
        // "alltoall" shuffles the shards step by step, a ring's passes).
        {"parallelism.context_parallel_rotate_method",
         "parallel.context_comm",
         Form::Choice,
         {{"allgather", "all-gather"}, {"alltoall", "ring"}}},
        {"parallelism.expert_parallel_degree", "parallel.expert", Form::Integer},
        {"parallelism.expert_tensor_parallel_degree", "parallel.expert_tensor", Form::Integer},
        // torch.distributed.pipelining's schedule classes, which get_schedule_class matches without case
        // (torchtitan's configs.py links them); looped BFS and ZBV read as their nearest.
        {"parallelism.pipeline_parallel_schedule",
         "parallel.schedule",
         Form::Choice,
         {{"1F1B", "1f1b"},
          {"GPipe", "gpipe"},
          {"Interleaved1F1B", "interleaved"},
          {"InterleavedZeroBubble", "zb-h1"},
          {"LoopedBFS", "interleaved"},
          {"ZBVZeroBubble", "zb-h1"}}},
        {"parallelism.enable_async_tensor_parallel", "parallel.tensor_comm_overlap", Form::Bool},
        {"parallelism.fsdp_reshard_after_forward",
         "parallel.reshard_after_forward",
         Form::Choice,
         {{"default", "true"}, {"never", "false"}, {"always", "true"}}},
        {"training.compile", "training.compile", Form::Bool},
        {"compile.enable", "training.compile", Form::Bool},
    };
    return rows;
}

} // namespace

std::span<const Name> names() { return table(); }

const Name *nameOf(std::string_view path) { return firstRow(table(), path); }

namespace {
/// "key = value\n" inside the key's section.
QString keyLine(std::string_view path, const QString &value)
{
    const Name *n = nameOf(path);
    return n ? QString::fromLatin1(n->name).section(QLatin1Char('.'), -1) + QStringLiteral(" = ") + value +
                   QLatin1Char('\n')
             : QString();
}
} // namespace

QString line(std::string_view path, std::int64_t value) { return keyLine(path, QString::number(value)); }

QString choiceLine(std::string_view path, std::string_view planValue)
{
    return keyLine(path, QLatin1Char('"') + spelling(path, planValue) + QLatin1Char('"'));
}

QString boolLine(std::string_view path, bool value)
{
    return keyLine(path, value ? QStringLiteral("true") : QStringLiteral("false"));
}

QString spelling(std::string_view path, std::string_view planValue)
{
    const Name *n = nameOf(path);
    return n ? choiceSpelling(*n, planValue) : QString();
}

} // namespace trainplan::io::torchtitan
