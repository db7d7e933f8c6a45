// SPDX-License-Identifier: GPL-3.0-or-later
// Issue 29, the window's side of "what reaches the terminal": text from files is shown as text,
// never as HTML. Qt renders a label's or message box's text as rich text when its first line
// holds a tag (Qt::AutoText), and QtCharts titles always: `<img src="/dev/zero">` in a scenario's
// key or a lesson's caption read the device until the window died, `<a href=...>` made a link
// in the error box that opens the browser.
#include "uitestutil.h"
#include "fileutil.h"
#include "chart/frontierchart.h"
#include "classroom/frontierview.h"
#include "classroom/lessoncontroller.h"
#include "document/documentcontroller.h"
#include "document/scenariomodel.h"
#include "window/mainwindow.h"

#include <QChart>
#include <QGraphicsItem>
#include <QGraphicsScene>
#include <QGraphicsView>
#include <QLabel>
#include <QMessageBox>
#include <QTemporaryDir>
#include <QTimer>
#include <QtTest>
#include <nlohmann/json.hpp>

using namespace headroom;
using nlohmann::json;

namespace {

// A tag Qt knows (so Qt::mightBeRichText says yes) and whose image would be read if rendered;
// "zero" names no file in the test's folder, so a regression shows as a failed check, not a hang.
const QByteArray kTag = "<img src=\"zero\">";

/// Where a label shows file text: every label whose text holds the tag shows it as plain text.
int labelsWithTheTag(QWidget &root, QStringList &rich)
{
    int found = 0;
    for (QLabel *label : root.findChildren<QLabel *>()) {
        if (!label->text().contains(QString::fromLatin1(kTag)))
            continue;
        ++found;
        if (label->textFormat() != Qt::PlainText)
            rich << label->text().left(80);
    }
    return found;
}

} // namespace

class TestRichText : public QObject
{
    Q_OBJECT
private:
    QTemporaryDir m_dir;

    QString write(const char *name, const json &doc)
    {
        return headroom::test::writeFile(m_dir, name, QByteArray::fromStdString(doc.dump()));
    }

private slots:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        headroom::test::isolateSettings("tst_richtext");
        QVERIFY(!Qt::mightBeRichText(QString::fromLatin1("plain text")));
        // The check below can fail: the tag on the first line is what Qt takes for rich text.
        QVERIFY(Qt::mightBeRichText(QString::fromLatin1("a.json: \"" + kTag + "\": unknown key")));
    }

    void errorBoxShowsTheKeyAsText()
    {
        // The window's own message box (not a test handler): an unknown key that is a tag.
        const QString path = write("tag-key.json", {{"format", "headroom-scenario"}, {"version", 1}, {kTag.toStdString(), 1}});
        MainWindow w;
        w.show();
        QString text;
        Qt::TextFormat format = Qt::AutoText;
        bool seen = false;
        QTimer poll;
        connect(&poll, &QTimer::timeout, [&] {
            if (auto *box = qobject_cast<QMessageBox *>(QApplication::activeModalWidget())) {
                seen = true;
                text = box->text();
                format = box->textFormat();
                box->done(QMessageBox::Ok);
            }
        });
        poll.start(20);
        QVERIFY(!w.document()->openFile(path));
        QVERIFY(seen);
        QVERIFY2(text.contains(QString::fromLatin1(kTag)) && text.contains(QLatin1String("unknown key")), qPrintable(text));
        QCOMPARE(format, Qt::PlainText);
    }

    void lessonTitleAndCaptionAreText()
    {
        const std::string tag = kTag.toStdString();
        const json step = {{"title", tag + " step"}, {"caption", tag + " caption"},
                           {"scenario", {{"format", "headroom-scenario"}, {"version", 1}}}};
        const QString path = write("tag-lesson.json", {{"format", "headroom-lesson"}, {"version", 1},
                                                       {"title", tag + " lesson"}, {"steps", {step}}});
        MainWindow w;
        w.show();
        QVERIFY(w.lessons()->openFile(path));
        QStringList rich;
        QVERIFY(labelsWithTheTag(w, rich) >= 2); // the title bar and the caption
        QVERIFY2(rich.isEmpty(), qPrintable(rich.join(QLatin1String(" | "))));
    }

    void frontierTitleIsEscaped()
    {
        // The model's name comes from its config.json's folder name: here a tag.
        const QString folder = QString::fromLatin1(kTag);
        QVERIFY(QDir(m_dir.path()).mkpath(folder));
        QFile source(QStringLiteral(HEADROOM_SOURCE_DIR "/tests/data/configs/llama-3.2-1b.json"));
        QVERIFY(source.open(QIODevice::ReadOnly));
        QFile config(m_dir.filePath(folder + QStringLiteral("/config.json")));
        QVERIFY(config.open(QIODevice::WriteOnly));
        config.write(source.readAll());
        config.close();
        const std::string tag = kTag.toStdString();
        const QString path = write("tag-model.json", {{"format", "headroom-scenario"}, {"version", 1}, {"name", tag + " name"},
                                                      {"task", "inference"}, {"framework", {{"name", "vllm"}}},
                                                      {"model", {{"config", tag + "/config.json"}}}, {"gpus", {"h100-80gb"}}});
        MainWindow w;
        w.show();
        QVERIFY(w.document()->openFile(path));
        w.frontier()->show();
        const QString title = w.frontier()->chart()->chart()->title();
        QVERIFY2(title.contains(QLatin1String("&lt;img src=&quot;zero&quot;&gt;")), qPrintable(title));
        QVERIFY2(!title.contains(QString::fromLatin1(kTag)), qPrintable(title));
        QStringList rich;
        labelsWithTheTag(*w.frontier(), rich);
        labelsWithTheTag(w, rich);
        QVERIFY2(rich.isEmpty(), qPrintable(rich.join(QLatin1String(" | "))));
        // Tooltips are rich text alike (the status line's, the chart's labels': a pin's whole
        // name): escaped, so the tag is never there as a tag.
        QVERIFY(w.model()->addPin(w.model()->scenario(), QString::fromLatin1(kTag) + QStringLiteral(" pin")));
        QApplication::processEvents();
        int tips = 0;
        for (QWidget *widget : w.findChildren<QWidget *>()) {
            QVERIFY2(!widget->toolTip().contains(QString::fromLatin1(kTag)), qPrintable(widget->toolTip()));
            tips += widget->toolTip().contains(QLatin1String("&lt;img")) ? 1 : 0;
        }
        for (QGraphicsView *view : w.findChildren<QGraphicsView *>())
            for (QGraphicsItem *item : view->scene()->items()) {
                QVERIFY2(!item->toolTip().contains(QString::fromLatin1(kTag)), qPrintable(item->toolTip()));
                tips += item->toolTip().contains(QLatin1String("&lt;img")) ? 1 : 0;
            }
        QVERIFY(tips >= 1); // the pin's column label
    }
};

QTEST_MAIN(TestRichText)
#include "tst_richtext.moc"
