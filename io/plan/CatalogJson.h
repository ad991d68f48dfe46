#pragma once
// The device catalog (resources/devices.json), model presets (resources/models.json) and cluster
// catalog (resources/cluster.json: intra-node links, network tiers, node templates).

#include <QByteArray>
#include <QJsonObject>
#include <QString>

#include <optional>

#include "io/plan/JsonReader.h"
#include "core/common/Problem.h"
#include "core/hardware/Catalog.h"

namespace trainplan::io {

/// Adds the devices of a "trainplan-devices" document to `catalog`; returns the problems found.
Problems readDevices(const QByteArray &json, Catalog &catalog);
/// Adds the models of a "trainplan-models" document to `catalog`.
Problems readModels(const QByteArray &json, Catalog &catalog);
/// Adds the intra-node links, network tiers and node templates of a "trainplan-cluster" document
/// (resources/cluster.json); node templates may name only devices already in `catalog`.
Problems readClusterCatalog(const QByteArray &json, Catalog &catalog);

/// One device object of devices.json (also a plan's cluster.custom_devices[i]): every figure checked.
void readDevice(JsonReader &reader, DeviceSpec &device);
QJsonObject deviceToJson(const DeviceSpec &device);
/// Why `id` cannot name a new device of the user's (nullopt when it can): what a plan's custom device id
/// must be (not empty, at most kMaxIdLength characters, no control characters) and not a device of `catalog`.
std::optional<QString> checkNewDeviceId(const QString &id, const Catalog &catalog);
/// A starting point for a user-defined device: the A100's efficiencies and links, no id or name.
DeviceSpec customDeviceTemplate();

/// The catalog compiled into the program. Its files are tested, so a problem here is a build defect.
const Catalog &builtinCatalog();

/// The built-in example plan (GPT-3 175B, tensor 8, pipeline 8 on 512 A100-80GB), as file bytes.
QByteArray builtinExamplePlan();

} // namespace trainplan::io
