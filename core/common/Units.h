#pragma once
// Quantities are SI doubles everywhere in core (bytes, seconds, FLOP, FLOP/s, bytes/s). This is the one
// place that turns them into text for people.

#include <string>

namespace trainplan::units {

inline constexpr double KiB = 1024.0;
inline constexpr double MiB = 1024.0 * KiB;
inline constexpr double GiB = 1024.0 * MiB;
inline constexpr double GB = 1e9;
inline constexpr double TB = 1e12;

enum class ByteUnit { Auto, GB, GiB };

/// "12.34 GiB", "512.0 MiB" ... With Auto, binary units are chosen by magnitude.
std::string formatBytes(double bytes, ByteUnit unit = ByteUnit::Auto, int decimals = 2);
/// "174.6 B", "6.74 B", "124.4 M" for parameter counts.
std::string formatCount(double count, int decimals = 2);
/// Fixed-point number with the given decimals, independent of the C locale; never "nan"/"inf" (those
/// print as "n/a") and never "-0".
std::string formatNumber(double value, int decimals = 2);

/// A duration read at a glance: "12.3 ms", "4.56 s", "3.5 min", "2.1 h", "45.7 days".
std::string formatDuration(double seconds);

} // namespace trainplan::units
