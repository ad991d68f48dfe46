#include "io/output/Format.h"

#include <QCoreApplication>

#include "core/common/Units.h"
#include "io/plan/ProblemWords.h"

namespace trainplan::fmt {

QString text(const std::string &s) { return QString::fromStdString(s); }
QString number(double value, int decimals) { return text(units::formatNumber(value, decimals)); }
QString gib(double bytes, int decimals) { return text(units::formatBytes(bytes, units::ByteUnit::GiB, decimals)); }
QString bytes(double bytes, int decimals) { return text(units::formatBytes(bytes, units::ByteUnit::Auto, decimals)); }
QString flops(double flopsPerSecond, int decimals) { return text(units::formatFlops(flopsPerSecond, decimals)); }
QString teraflops(double flopsPerSecond, int decimals) { return number(flopsPerSecond / units::Tera, decimals); }
QString bandwidth(double bytesPerSecond, int decimals)
{
    return text(units::formatBandwidth(bytesPerSecond, decimals));
}
QString gigabytesPerSecond(double bytesPerSecond, int decimals) { return number(bytesPerSecond / units::GB, decimals); }
QString percent(double fraction, int decimals) { return text(units::formatPercent(fraction, decimals)); }
QString duration(double seconds) { return text(units::formatDuration(seconds)); }
QString count(double value, int decimals) { return text(units::formatCount(value, decimals)); }
QString counted(long long n, const QString &one, const QString &many)
{
    return QString::number(n) + QLatin1Char(' ') + (n == 1 ? one : many);
}
QString grouped(double value, int decimals) { return text(units::formatGrouped(value, decimals)); }
QString currency(double amount, const std::string &code) { return text(units::formatCurrency(amount, code)); }

QStringList planErrors(const std::vector<Problem> &problems, int most)
{
    QStringList lines{
        QCoreApplication::translate("fmt", "The plan has errors; each is shown under its field in the editor:")};
    for (const Problem &p : problems)
        if (p.isError() && lines.size() <= most)
            lines << QStringLiteral("• %1: %2").arg(text(p.key), io::problemText(p));
    return lines;
}

} // namespace trainplan::fmt
