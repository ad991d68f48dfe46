#pragma once
// The device catalog (resources/devices.json) and model presets (resources/models.json).

#include <QByteArray>

#include "common/Problem.h"
#include "hardware/Catalog.h"

namespace trainplan::io {

/// Adds the devices of a "trainplan-devices" document to `catalog`; returns the problems found.
Problems readDevices(const QByteArray &json, Catalog &catalog);
/// Adds the models of a "trainplan-models" document to `catalog`.
Problems readModels(const QByteArray &json, Catalog &catalog);

/// The catalog compiled into the program. Its files are tested, so a problem here is a build defect.
const Catalog &builtinCatalog();

/// The built-in example plan (GPT-3 175B, tensor 8, pipeline 8 on 512 A100-80GB), as file bytes.
QByteArray builtinExamplePlan();

} // namespace trainplan::io
