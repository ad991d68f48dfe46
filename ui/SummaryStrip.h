#pragma once
// The answers at a glance: does the plan fit (and by how much), step time, tokens/s, MFU, and what limits
// the step, in words. Each number's tooltip gives its formula and inputs.

#include <QWidget>

class QLabel;

namespace trainplan {

class PlanDocument;

class SummaryStrip : public QWidget
{
    Q_OBJECT

public:
    explicit SummaryStrip(PlanDocument *document, QWidget *parent = nullptr);

    QString fitText() const;
    QString bottleneckText() const;

private:
    void refresh();

    PlanDocument *m_document;
    QLabel *m_fit;
    QLabel *m_step;
    QLabel *m_tokens;
    QLabel *m_mfu;
    QLabel *m_bottleneck;
};

} // namespace trainplan
