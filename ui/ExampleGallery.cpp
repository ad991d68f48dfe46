#include "ui/ExampleGallery.h"

#include <QDialogButtonBox>
#include <QLabel>
#include <QListWidget>
#include <QPushButton>
#include <QVBoxLayout>

#include "io/plan/Examples.h"

namespace trainplan {

ExampleGallery::ExampleGallery(QWidget *parent)
    : QDialog(parent), m_list(new QListWidget)
{
    setObjectName(QStringLiteral("exampleGallery"));
    setWindowTitle(tr("New from Example"));
    m_list->setObjectName(QStringLiteral("exampleList"));
    m_list->setWordWrap(true);
    m_list->setAlternatingRowColors(true);
    m_list->setSpacing(2);
    for (const io::ExamplePlan &e : io::builtinExamples()) {
        auto *item = new QListWidgetItem(QStringLiteral("%1\n%2").arg(e.name, e.description), m_list);
        item->setData(Qt::UserRole, e.id);
        item->setToolTip(e.description);
        QFont bold = item->font();
        item->setFont(bold);
    }
    m_list->setCurrentRow(0);
    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Open | QDialogButtonBox::Cancel);
    connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(m_list, &QListWidget::itemDoubleClicked, this, &QDialog::accept);
    auto *column = new QVBoxLayout(this);
    column->addWidget(new QLabel(tr("Start from one of these plans; every key can be changed afterwards.")));
    column->addWidget(m_list, 1);
    column->addWidget(buttons);
    resize(720, 520);
}

QString ExampleGallery::chosenId() const
{
    const QListWidgetItem *item = m_list->currentItem();
    return item ? item->data(Qt::UserRole).toString() : QString();
}

} // namespace trainplan
