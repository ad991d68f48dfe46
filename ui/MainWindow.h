#pragma once
// The planner window. Wiring only: the document, the action handler and the views.

#include <QMainWindow>

namespace trainplan {

class DocumentActions;
class PlanDocument;

class MainWindow : public QMainWindow
{
    Q_OBJECT

public:
    explicit MainWindow(PlanDocument *document, QWidget *parent = nullptr);

    DocumentActions *documentActions() const { return m_actions; }

protected:
    void closeEvent(QCloseEvent *event) override;

private:
    void createMenus();
    void updateTitle();

    PlanDocument *m_document;
    DocumentActions *m_actions;
};

} // namespace trainplan
