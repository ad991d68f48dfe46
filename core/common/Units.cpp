#include "common/Units.h"

#include <cmath>
#include <cstdio>

namespace trainplan::units {

std::string formatNumber(double value, int decimals)
{
    if (!std::isfinite(value))
        return "n/a";
    char buffer[64];
    std::snprintf(buffer, sizeof buffer, "%.*f", decimals, value);
    return buffer;
}

std::string formatBytes(double bytes, ByteUnit unit, int decimals)
{
    if (!std::isfinite(bytes))
        return "n/a";
    if (unit == ByteUnit::GB)
        return formatNumber(bytes / GB, decimals) + " GB";
    if (unit == ByteUnit::GiB)
        return formatNumber(bytes / GiB, decimals) + " GiB";
    const double magnitude = std::fabs(bytes);
    if (magnitude >= GiB)
        return formatNumber(bytes / GiB, decimals) + " GiB";
    if (magnitude >= MiB)
        return formatNumber(bytes / MiB, decimals) + " MiB";
    if (magnitude >= KiB)
        return formatNumber(bytes / KiB, decimals) + " KiB";
    return formatNumber(bytes, 0) + " B";
}

std::string formatCount(double count, int decimals)
{
    if (!std::isfinite(count))
        return "n/a";
    const double magnitude = std::fabs(count);
    if (magnitude >= 1e12)
        return formatNumber(count / 1e12, decimals) + " T";
    if (magnitude >= 1e9)
        return formatNumber(count / 1e9, decimals) + " B";
    if (magnitude >= 1e6)
        return formatNumber(count / 1e6, decimals) + " M";
    if (magnitude >= 1e3)
        return formatNumber(count / 1e3, decimals) + " K";
    return formatNumber(count, 0);
}

} // namespace trainplan::units
