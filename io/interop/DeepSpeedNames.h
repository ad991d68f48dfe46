#pragma once
// DeepSpeed's config keys (deepspeed/runtime/config.py, zero/config.py) that carry one plan key, in one
// two-way table: the DeepSpeed importer reads them and the exporter writes them. A choice lists the config's
// spellings with the plan's, export writing a value's first spelling.

#include <QJsonObject>
#include <QJsonValue>

#include "io/interop/KeyNames.h"

#include <span>
#include <string_view>

namespace trainplan::io::deepspeed {

using Form = NameForm;
using Name = KeyName;

std::span<const Name> names();

/// Sets the key's config entry in `config` (nested objects made as needed): a number or flag as it is, a
/// plan choice ("true") as its first spelling ("cpu"). Nothing when no row carries the key.
void set(QJsonObject &config, std::string_view path, const QJsonValue &planValue);

} // namespace trainplan::io::deepspeed
