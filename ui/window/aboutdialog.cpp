// SPDX-License-Identifier: GPL-3.0-or-later
#include "window/aboutdialog.h"

#include "about.h"

#include <QApplication>
#include <QPushButton>

namespace headroom {

AboutDialog::AboutDialog(QWidget *parent) : QMessageBox(parent)
{
    setWindowTitle(tr("About Headroom"));
    setIconPixmap(QApplication::windowIcon().pixmap(64, 64));
    const QStringList facts = aboutFacts();
    QString html = QStringLiteral("<b>%1</b><p>%2</p>")
                       .arg(facts.value(0).toHtmlEscaped(),
                            tr("Where GPU memory goes when you train or serve a large language model."));
    for (qsizetype i = 1; i < facts.size(); ++i)
        html += QStringLiteral("<p>%1</p>").arg(facts.at(i).toHtmlEscaped());
    setTextFormat(Qt::RichText);
    setText(html);
    setStandardButtons(QMessageBox::Ok);
    QPushButton *aboutQt = addButton(tr("About &Qt"), QMessageBox::HelpRole);
    connect(aboutQt, &QPushButton::clicked, qApp, &QApplication::aboutQt);
}

} // namespace headroom
