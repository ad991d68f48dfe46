#include "io/interop/DeepSpeedNames.h"

#include <QStringList>

namespace trainplan::io::deepspeed {

namespace {

const std::vector<Name> &table()
{
    static const std::vector<Name> rows{
        {"train_batch_size", "training.global_batch", Form::Integer},
        {"train_micro_batch_size_per_gpu", "training.micro_batch", Form::Integer},
        {"zero_optimization.stage", "parallel.zero_stage", Form::Integer},
        {"zero_optimization.overlap_comm", "parallel.overlap_grad_reduce", Form::Bool},
        // ZeRO-Offload's optimizer (DeepSpeedZeroOffloadOptimizerConfig.device: none, cpu or nvme).
        {"zero_optimization.offload_optimizer.device",
         "parallel.offload_optimizer",
         Form::Choice,
         {{"cpu", "true"}, {"none", "false"}, {"nvme", "true"}}},
        // ZeRO-3's parameters in host memory (DeepSpeedZeroOffloadParamConfig.device; ZeRO-Infinity).
        {"zero_optimization.offload_param.device",
         "parallel.offload_parameters",
         Form::Choice,
         {{"cpu", "true"}, {"none", "false"}, {"nvme", "true"}}},
        // ZeRO++ (deepspeed/runtime/zero/config.py DeepSpeedZeroConfig: zero_quantized_weights,
        // zero_hpz_partition_size, zero_quantized_gradients; Wang et al. 2023).
        {"zero_optimization.zero_quantized_weights", "parallel.zero_quantized_weights", Form::Bool},
        {"zero_optimization.zero_hpz_partition_size", "parallel.zero_hpz_partition", Form::Integer},
        {"zero_optimization.zero_quantized_gradients", "parallel.zero_quantized_gradients", Form::Bool},
        {"tensor_parallel.autotp_size", "parallel.tensor", Form::Integer}, // DeepSpeed AutoTP training
    };
    return rows;
}

void setNested(QJsonObject &object, const QStringList &keys, int at, const QJsonValue &value)
{
    if (at == keys.size() - 1) {
        object.insert(keys[at], value);
        return;
    }
    QJsonObject inner = object.value(keys[at]).toObject();
    setNested(inner, keys, at + 1, value);
    object.insert(keys[at], inner);
}

} // namespace

std::span<const Name> names()
{
    return table();
}

void set(QJsonObject &config, std::string_view path, const QJsonValue &planValue)
{
    const Name *n = firstRow(table(), path);
    if (!n)
        return;
    QJsonValue value = planValue;
    if (n->form == Form::Choice) {
        const QString plan = planValue.isBool()
                                 ? (planValue.toBool() ? QStringLiteral("true") : QStringLiteral("false"))
                                 : planValue.toString();
        value = choiceSpelling(*n, plan.toStdString());
    }
    setNested(config, QString::fromLatin1(n->name).split(QLatin1Char('.')), 0, value);
}

} // namespace trainplan::io::deepspeed
