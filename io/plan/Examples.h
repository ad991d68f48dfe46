#pragma once
// The examples gallery: the plans compiled in from resources/examples, each with its name and one-line
// description (the plan's "description" key). New from Example and `trainplan examples` list them.

#include <QByteArray>
#include <QList>
#include <QString>

namespace trainplan::io {

struct ExamplePlan
{
    QString id;          ///< file stem: "gpt3-175b-tp8-pp8"
    QString name;        ///< the plan's name (or its automatic name)
    QString description; ///< its description
    QByteArray bytes;    ///< the plan file
};

/// Every built-in example, the default one (builtinExamplePlan) first, then by id.
const QList<ExamplePlan> &builtinExamples();

} // namespace trainplan::io
