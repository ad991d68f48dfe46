#pragma once
// What QJsonDocument does not say about a plan file: it silently keeps one of two equal keys in an object
// (a key written twice, or once with an escape, "global_batc\u0068", would mean whichever came last), and
// its parse errors give a byte offset but not the key. This scan finds both, with dotted key paths.

#include <QByteArray>
#include <QString>

#include <optional>

namespace trainplan::io {

/// The dotted path of the first key that appears twice in one object ("training.micro_batch"), keys
/// compared after unescaping, or nothing. Expects text QJsonDocument already accepted; linear in its size.
std::optional<QString> findDuplicateKey(const QByteArray &json);

/// The dotted path of the key whose value holds byte `offset` ("training.global_batch"), or nothing (the
/// offset is not inside a key's value). Works on malformed JSON up to the offset.
std::optional<QString> keyPathAt(const QByteArray &json, qsizetype offset);

} // namespace trainplan::io
