#pragma once
// Numbers for people, in the charts, the window and the report: the one place they turn quantities into
// text (on core/common/Units). Memory in GiB, bandwidth in GB/s, arithmetic in TFLOP/s, fractions in percent,
// money with grouped digits; never "nan".

#include <QString>

#include <string>

#include <vector>

#include "core/common/Problem.h"

namespace trainplan::fmt {

QString text(const std::string &s);
QString number(double value, int decimals = 2);
/// Memory: "12.3 GiB".
QString gib(double bytes, int decimals = 1);
/// Memory in the unit its size asks for: "512.0 MiB", "12.34 GiB".
QString bytes(double bytes, int decimals = 2);
/// Arithmetic: "312.0 TFLOP/s".
QString flops(double flopsPerSecond, int decimals = 1);
/// TFLOP/s as a bare number ("312.0"), for tables whose column says the unit.
QString teraflops(double flopsPerSecond, int decimals = 1);
/// Bandwidth: "600.0 GB/s", "2.04 TB/s".
QString bandwidth(double bytesPerSecond, int decimals = 1);
/// GB/s as a bare number, for tables whose column says the unit.
QString gigabytesPerSecond(double bytesPerSecond, int decimals = 1);
/// A fraction: 0.957 -> "95.7%".
QString percent(double fraction, int decimals = 1);
QString duration(double seconds);
/// Parameter and token counts: "174.6 B", "6.74 B".
QString count(double value, int decimals = 2);
/// A whole count with its noun in the right number: "1 node", "8 nodes".
QString counted(long long n, const QString &one, const QString &many);
/// Digits in groups of three: "1,061,321".
QString grouped(double value, int decimals = 0);
/// Money in the plan's currency: "$1,061,321", "1,061,321 CHF".
QString currency(double amount, const std::string &code);
/// What a chart shows instead of itself for a plan with errors: a heading and the first `most` errors, one
/// "• key: rule" each.
QStringList planErrors(const std::vector<Problem> &problems, int most = 3);

} // namespace trainplan::fmt
