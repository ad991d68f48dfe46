#pragma once
// QJsonDocument silently keeps one of two equal keys in an object; a plan edited by hand with a key
// twice would then mean whichever came last. This scan finds the first duplicated key, with its path.

#include <QByteArray>
#include <QString>

#include <optional>

namespace trainplan::io {

/// The dotted path of the first key that appears twice in one object ("training.micro_batch"), or
/// nothing. Expects text QJsonDocument already accepted; linear in its size, bounded memory.
std::optional<QString> findDuplicateKey(const QByteArray &json);

} // namespace trainplan::io
