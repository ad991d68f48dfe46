#include "core/common/Units.h"

#include <charconv>
#include <cmath>

namespace trainplan::units {

std::string formatNumber(double value, int decimals)
{
    if (!std::isfinite(value))
        return "n/a";
    // std::to_chars never consults the C locale: a GUI under a comma-decimal locale prints "1.5" too.
    char buffer[400];
    const auto result =
        std::to_chars(buffer, buffer + sizeof buffer, value, std::chars_format::fixed, decimals < 0 ? 0 : decimals);
    if (result.ec != std::errc())
        return "n/a";
    std::string text(buffer, result.ptr);
    if (text == "-0" || text.find_first_not_of("-0.") == std::string::npos)
        if (text[0] == '-')
            text.erase(0, 1); // no "-0.00"
    return text;
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

std::string formatDuration(double seconds)
{
    if (seconds < 1.0)
        return formatNumber(seconds * 1e3, 1) + " ms";
    if (seconds < 120.0)
        return formatNumber(seconds, 2) + " s";
    if (seconds < 7200.0)
        return formatNumber(seconds / 60.0, 1) + " min";
    if (seconds < 3 * 86400.0)
        return formatNumber(seconds / 3600.0, 1) + " h";
    return formatNumber(seconds / 86400.0, 1) + " days";
}

std::string formatFlops(double flopsPerSecond, int decimals)
{
    if (!std::isfinite(flopsPerSecond))
        return "n/a";
    const double magnitude = std::fabs(flopsPerSecond);
    if (magnitude >= Peta)
        return formatNumber(flopsPerSecond / Peta, decimals + 1) + " PFLOP/s";
    if (magnitude >= Tera)
        return formatNumber(flopsPerSecond / Tera, decimals) + " TFLOP/s";
    return formatNumber(flopsPerSecond / Giga, decimals) + " GFLOP/s";
}

std::string formatBandwidth(double bytesPerSecond, int decimals)
{
    if (!std::isfinite(bytesPerSecond))
        return "n/a";
    if (std::fabs(bytesPerSecond) >= TB)
        return formatNumber(bytesPerSecond / TB, decimals + 1) + " TB/s";
    if (std::fabs(bytesPerSecond) >= GB || bytesPerSecond == 0)
        return formatNumber(bytesPerSecond / GB, decimals) + " GB/s";
    return formatNumber(bytesPerSecond / Mega, decimals) + " MB/s";
}

std::string formatPercent(double fraction, int decimals)
{
    return std::isfinite(fraction) ? formatNumber(100.0 * fraction, decimals) + "%" : "n/a";
}

std::string formatGrouped(double value, int decimals)
{
    std::string text = formatNumber(value, decimals);
    if (text == "n/a")
        return text;
    const std::size_t begin = text[0] == '-' ? 1 : 0;
    std::size_t end = text.find('.');
    if (end == std::string::npos)
        end = text.size();
    for (std::size_t i = end; i > begin + 3; i -= 3)
        text.insert(i - 3, ",");
    return text;
}

std::string formatCurrency(double amount, const std::string &currency)
{
    static const std::pair<const char *, const char *> signs[] = {
        {"USD", "$"}, {"EUR", "\u20ac"}, {"GBP", "\u00a3"}, {"JPY", "\u00a5"}, {"CNY", "\u00a5"}};
    const std::string digits = formatGrouped(amount, std::fabs(amount) < 100 ? 2 : 0);
    if (digits == "n/a")
        return digits;
    for (const auto &[code, sign] : signs)
        if (currency == code)
            return digits[0] == '-' ? "-" + std::string(sign) + digits.substr(1) : sign + digits;
    return currency.empty() ? digits : digits + " " + currency;
}

} // namespace trainplan::units
