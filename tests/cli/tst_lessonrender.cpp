// SPDX-License-Identifier: GPL-3.0-or-later
// `headroom render LESSON.json`: a handout PDF with one page per step, or one step with --step N.
#include "lesson/lesson.h"
#include "processutil.h"

#include <QFile>
#include <QImage>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QtTest>

namespace {

/// `headroom render ARGUMENTS`.
headroom::test::Run render(const QStringList &arguments)
{
    return headroom::test::runHeadroom(QStringList{QStringLiteral("render")} + arguments);
}

QString lessonPath(const char *id)
{
    return QStringLiteral(HEADROOM_SOURCE_DIR "/resources/lessons/%1.json").arg(QLatin1String(id));
}

/// The handout's pages: one per step, and the closing comparison when the lesson asks for it.
int stepCount(const char *id)
{
    QFile file(lessonPath(id));
    file.open(QIODevice::ReadOnly);
    const headroom::Lesson lesson = headroom::parseLesson(file.readAll().toStdString());
    return int(lesson.steps.size()) + (lesson.comparison ? 1 : 0);
}

/// "/Type /Page" objects, not "/Type /Pages".
int pageCount(const QByteArray &pdf)
{
    static const QRegularExpression page(QStringLiteral("/Type\\s*/Page(?!s)"));
    return int(QString::fromLatin1(pdf).count(page));
}

} // namespace

class TestLessonRender : public QObject
{
    Q_OBJECT
private:
    QTemporaryDir m_dir;

private slots:
    void initTestCase() { QVERIFY(m_dir.isValid()); }

    void handoutHasOnePagePerStep_data()
    {
        QTest::addColumn<QString>("id");
        QTest::newRow("ladder") << QStringLiteral("ladder");
        QTest::newRow("long-context") << QStringLiteral("long-context");
        QTest::newRow("serving") << QStringLiteral("serving-the-other-10-gb");
    }

    void handoutHasOnePagePerStep()
    {
        QFETCH(QString, id);
        const QString out = m_dir.filePath(id + QStringLiteral(".pdf"));
        const headroom::test::Run run = render({lessonPath(id.toLatin1().constData()), QStringLiteral("--out"), out});
        QVERIFY2(run.exitCode == 0, qPrintable(run.err));
        QFile file(out);
        QVERIFY(file.open(QIODevice::ReadOnly));
        const QByteArray pdf = file.readAll();
        QVERIFY(pdf.startsWith("%PDF"));
        QCOMPARE(pageCount(pdf), stepCount(id.toLatin1().constData()));
    }

    void oneStepAtTheRequestedSize_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addColumn<QString>("step");
        QTest::newRow("png-step-1") << QStringLiteral("step1.png") << QStringLiteral("1");
        QTest::newRow("png-step-3") << QStringLiteral("step3.png") << QStringLiteral("3");
    }

    void oneStepAtTheRequestedSize()
    {
        QFETCH(QString, name);
        QFETCH(QString, step);
        const QString out = m_dir.filePath(name);
        const headroom::test::Run run = render({lessonPath("ladder"), QStringLiteral("--out"), out, QStringLiteral("--step"), step,
                                     QStringLiteral("--width"), QStringLiteral("800"), QStringLiteral("--height"),
                                     QStringLiteral("450"), QStringLiteral("--scale"), QStringLiteral("1.5")});
        QVERIFY2(run.exitCode == 0, qPrintable(run.err));
        const QImage image(out);
        QCOMPARE(image.size(), QSize(1200, 675));
        QVERIFY(QColor(image.pixel(2, 2)).lightness() > 200);
    }

    void oneStepAsSvgAndPdf()
    {
        const QString svg = m_dir.filePath(QStringLiteral("step.svg"));
        QCOMPARE(render({lessonPath("ladder"), QStringLiteral("--out"), svg, QStringLiteral("--step"),
                              QStringLiteral("2")}).exitCode, 0);
        QFile svgFile(svg);
        QVERIFY(svgFile.open(QIODevice::ReadOnly));
        const QByteArray text = svgFile.readAll();
        QVERIFY(text.contains("<svg"));
        QVERIFY(text.contains("bf16 mixed precision"));
        const QString pdf = m_dir.filePath(QStringLiteral("step.pdf"));
        QCOMPARE(render({lessonPath("ladder"), QStringLiteral("--out"), pdf, QStringLiteral("--step"),
                              QStringLiteral("2")}).exitCode, 0);
        QFile pdfFile(pdf);
        QVERIFY(pdfFile.open(QIODevice::ReadOnly));
        QCOMPARE(pageCount(pdfFile.readAll()), 1);
    }

    void badInputExits2WithOneLine_data()
    {
        QTest::addColumn<QStringList>("arguments");
        QTest::addColumn<QString>("expected");
        QTest::newRow("png-without-step") << QStringList{lessonPath("ladder"), QStringLiteral("--out"), QStringLiteral("deck.png")}
                                          << QStringLiteral("--step");
        QTest::newRow("step-too-large") << QStringList{lessonPath("ladder"), QStringLiteral("--out"), QStringLiteral("deck.png"),
                                                       QStringLiteral("--step"), QStringLiteral("99")} << QStringLiteral("steps");
        QTest::newRow("step-zero") << QStringList{lessonPath("ladder"), QStringLiteral("--out"), QStringLiteral("deck.png"),
                                                  QStringLiteral("--step"), QStringLiteral("0")} << QStringLiteral("--step");
        QTest::newRow("step-on-scenario") << QStringList{QStringLiteral(HEADROOM_SOURCE_DIR "/examples/llama2-7b-lora.headroom.json"),
                                                         QStringLiteral("--out"), QStringLiteral("deck.png"),
                                                         QStringLiteral("--step"), QStringLiteral("1")} << QStringLiteral("--step");
    }

    void badInputExits2WithOneLine()
    {
        QFETCH(QStringList, arguments);
        QFETCH(QString, expected);
        for (QString &argument : arguments)
            if (argument == QLatin1String("deck.png"))
                argument = m_dir.filePath(argument);
        const headroom::test::Run run = render(arguments);
        QCOMPARE(run.exitCode, 2);
        QVERIFY2(run.err.contains(expected), qPrintable(run.err));
        QVERIFY2(run.err.trimmed().count(QLatin1Char('\n')) == 0, qPrintable(run.err));
        QVERIFY(!QFile::exists(m_dir.filePath(QStringLiteral("deck.png"))));
    }
};

QTEST_MAIN(TestLessonRender)
#include "tst_lessonrender.moc"
