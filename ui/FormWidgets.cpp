#include "ui/FormWidgets.h"

#include <QDoubleSpinBox>

namespace trainplan {

QDoubleSpinBox *numberSpinBox(double min, double max, double value, int decimals, const QString &suffix)
{
    auto *s = new QDoubleSpinBox;
    s->setRange(min, max);
    s->setDecimals(decimals);
    s->setValue(value);
    s->setSuffix(suffix);
    s->setAccelerated(true);
    return s;
}

} // namespace trainplan
