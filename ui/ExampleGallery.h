#pragma once
// New from Example: the gallery of built-in plans (io/plan/Examples), one row per plan with its one-line
// description; double-click or Open loads the chosen one.

#include <QDialog>

class QListWidget;

namespace trainplan {

class ExampleGallery : public QDialog
{
    Q_OBJECT

public:
    explicit ExampleGallery(QWidget *parent = nullptr);

    QListWidget *list() const { return m_list; }
    /// The chosen example's id ("" when none is selected).
    QString chosenId() const;

private:
    QListWidget *m_list;
};

} // namespace trainplan
