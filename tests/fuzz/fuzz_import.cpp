// libFuzzer targets, one per import format (TRAINPLAN_IMPORT_FORMAT: a value of io::ImportFormat): the file
// read alone (io::importFile), then combined into a plan (io::importContents); a plan that validates is
// estimated on the analytic path and exported to every launch target. The seeds include issue 39's bombs
// (tests/fuzz/corpus/import-bombs): the run's -rss_limit_mb and -timeout hold the readers' expansion,
// alias and nesting limits.
#include "FuzzSupport.h"

#include "io/interop/Export.h"
#include "io/interop/Import.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
    using namespace trainplan;
    if (size > 64 * 1024)
        return 0;
    constexpr auto format = io::ImportFormat(TRAINPLAN_IMPORT_FORMAT);
    static const char *const names[] = {"config.json", "pretrain.sh", "recipe.yaml", "job.toml", "ds_config.json"};
    const QString name = QString::fromLatin1(names[int(format)]);
    const QByteArray bytes = fuzz::bytes(data, size);
    const io::FileImport file = io::importFile(name, bytes, format);
    for (const io::ImportedKey &key : file.keys) {
        if (key.path.isEmpty())
            __builtin_trap(); // every key read names its plan key
        if (key.value.isString() && key.value.toString().size() > (1 << 20))
            __builtin_trap(); // the shell's expansion limit: no word grows past 1 MiB
    }
    // The readers' limits (expansion, aliases, nesting) refuse naming the file and what they met.
    for (const io::ImportMessage &error : file.errors)
        if (error.file != name || error.text.isEmpty())
            __builtin_trap();
    const Catalog &catalog = io::builtinCatalog();
    const io::ImportResult result = io::importContents({{name, bytes}}, {}, catalog);
    (void)io::importReport(result);
    if (!result.plan)
        return 0;
    fuzz::exercise(*result.plan, catalog, true);
    for (io::ExportTarget target : {io::ExportTarget::Megatron, io::ExportTarget::NeMo, io::ExportTarget::Torchtitan,
                                    io::ExportTarget::DeepSpeed, io::ExportTarget::LlmFoundry})
        (void)io::exportPlan(*result.plan, target, catalog);
    return 0;
}
