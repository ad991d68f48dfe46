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

/// SI prefixes, for FLOP/s, bytes/s, counts and durations.
inline constexpr double Micro = 1e-6;
inline constexpr double Milli = 1e-3;
inline constexpr double Kilo = 1e3;
inline constexpr double Mega = 1e6;
inline constexpr double Giga = 1e9;
inline constexpr double Tera = 1e12;
inline constexpr double Peta = 1e15;

inline constexpr double SecondsPerHour = 3600.0;
inline constexpr double SecondsPerDay = 86400.0;
inline constexpr double JoulesPerKilowattHour = 3.6e6;

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

/// Arithmetic throughput: "312 TFLOP/s", "1.98 PFLOP/s", "45.2 GFLOP/s".
std::string formatFlops(double flopsPerSecond, int decimals = 1);
/// Bandwidth in decimal units, as links and memories are sold: "600.0 GB/s", "3.35 TB/s", "12.5 GB/s".
std::string formatBandwidth(double bytesPerSecond, int decimals = 1);
/// A fraction as a percentage: 0.957 -> "95.7%".
std::string formatPercent(double fraction, int decimals = 1);
/// Digits in groups of three: 1061321.4 -> "1,061,321"; never "nan" (prints "n/a").
std::string formatGrouped(double value, int decimals = 0);
/// Money with grouped digits: the sign in front for USD, EUR, GBP, JPY and CNY ("$1,061,321"), any other
/// currency word after ("1,061,321 CHF").
std::string formatCurrency(double amount, const std::string &currency = "USD");

} // namespace trainplan::units
