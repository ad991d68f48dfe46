#include "io/measure/CalibrationReport.h"

#include <QTextStream>

namespace trainplan::io {

QString calibrationReport(const DeviceFit &f)
{
    QString text;
    QTextStream out(&text);
    out << QStringLiteral("Fitted %1 (cost %2 -> %3, %4 iterations)\n").arg(QString::fromStdString(f.device.id))
               .arg(f.fit.startCost, 0, 'g', 4).arg(f.fit.cost, 0, 'g', 4).arg(f.fit.iterations);
    for (std::size_t i = 0; i < f.parameters.size(); ++i) {
        const BoundedParameter &p = f.parameters[i];
        const double v = f.fit.values[i], margin = 0.005 * (p.upper - p.lower);
        const bool identified = i < f.identified.size() ? f.identified[i] : !f.fit.held[i];
        const QString note =
            !identified ? QStringLiteral("held at the catalog's %1 +/- %2: the measurements do not identify it")
                              .arg(p.value, 0, 'g', 4)
                              .arg(i < f.priorSigma.size() ? f.priorSigma[i] : 0.0, 0, 'g', 2)
            : v - p.lower < margin || p.upper - v < margin
                ? QStringLiteral("at its %1 bound: the measurements push it out of the physical range (start %2)")
                      .arg(v - p.lower < margin ? QStringLiteral("lower") : QStringLiteral("upper"))
                      .arg(p.value, 0, 'g', 4)
            : f.fit.standardErrors[i] > 0
                ? QStringLiteral("identified, +/- %1 (catalog %2)")
                      .arg(f.fit.standardErrors[i], 0, 'g', 3)
                      .arg(p.value, 0, 'g', 4)
                : QStringLiteral("(start %1; no error estimate: more measurements than fitted parameters needed)")
                      .arg(p.value, 0, 'g', 4);
        out << QStringLiteral("  %1 %2 %3\n")
                   .arg(QString::fromStdString(p.name).leftJustified(26))
                   .arg(v, 10, 'g', 4)
                   .arg(note);
    }
    const QString heldOut = f.leaveOneOut.empty() ? QString()
                            : f.heldOutFolds < kHeldOutFolds
                                ? QStringLiteral(", left out")
                                : QStringLiteral(", held out in %1 folds").arg(f.heldOutFolds);
    out << QStringLiteral("Rows (error before -> after%1):\n").arg(heldOut);
    for (std::size_t k = 0; k < f.residualLabels.size(); ++k)
        out << QStringLiteral("  %1 %2% -> %3%%4\n")
                   .arg(QString::fromStdString(f.residualLabels[k]).leftJustified(40))
                   .arg(100 * f.errorsBefore[k], 7, 'f', 1)
                   .arg(100 * f.errorsAfter[k], 7, 'f', 1)
                   .arg(k < f.leaveOneOut.size() ? QStringLiteral(", %1%").arg(100 * f.leaveOneOut[k], 0, 'f', 1)
                                                 : QString());
    out.flush();
    return text;
}

} // namespace trainplan::io
