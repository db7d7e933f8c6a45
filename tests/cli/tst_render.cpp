// SPDX-License-Identifier: GPL-3.0-or-later
// `headroom render` as a user runs it without a display: PNG, SVG and PDF of a scenario or a
// comparison, and one clear line with exit code 2 for bad input.
#include "fileutil.h"
#include <QFile>
#include <QImage>
#include "processutil.h"
#include <QTemporaryDir>
#include <QtTest>

using headroom::test::Run;
using headroom::test::runHeadroom;

namespace {

const QString kExample = QStringLiteral(HEADROOM_SOURCE_DIR "/examples/llama2-7b-lora.headroom.json");

} // namespace

class TestRender : public QObject
{
    Q_OBJECT
private:
    QTemporaryDir m_dir;

    QString write(const char *name, const QByteArray &content)
    {
        return headroom::test::writeFile(m_dir, name, content);
    }

private slots:
    void initTestCase() { QVERIFY(m_dir.isValid()); }

    void pngOfTheRequestedSize()
    {
        const QString out = m_dir.filePath(QStringLiteral("chart.png"));
        const Run run = runHeadroom({QStringLiteral("render"), kExample, QStringLiteral("--out"), out,
                                     QStringLiteral("--width"), QStringLiteral("800"), QStringLiteral("--height"),
                                     QStringLiteral("450"), QStringLiteral("--scale"), QStringLiteral("1.5")});
        QVERIFY2(run.exitCode == 0, qPrintable(run.err));
        QCOMPARE(QImage(out).size(), QSize(1200, 675));
    }

    void defaultSizeIs1920x1080AtScale2()
    {
        const QString out = m_dir.filePath(QStringLiteral("default.png"));
        const Run run = runHeadroom({QStringLiteral("render"), kExample, QStringLiteral("--out"), out});
        QVERIFY2(run.exitCode == 0, qPrintable(run.err));
        QCOMPARE(QImage(out).size(), QSize(3840, 2160));
    }

    void everyOption()
    {
        const QString out = m_dir.filePath(QStringLiteral("phases.png"));
        const Run run = runHeadroom({QStringLiteral("render"), kExample, QStringLiteral("--out"), out,
                                     QStringLiteral("--width"), QStringLiteral("640"), QStringLiteral("--height"),
                                     QStringLiteral("360"), QStringLiteral("--scale"), QStringLiteral("1"),
                                     QStringLiteral("--theme"), QStringLiteral("dark"), QStringLiteral("--view"),
                                     QStringLiteral("phases"), QStringLiteral("--unit"), QStringLiteral("GiB"),
                                     QStringLiteral("--set"), QStringLiteral("train.micro_batch=1")});
        QVERIFY2(run.exitCode == 0, qPrintable(run.err));
        const QImage image(out);
        QCOMPARE(image.size(), QSize(640, 360));
        QVERIFY(QColor(image.pixel(2, 2)).lightness() < 80);
    }

    void svgAndPdf()
    {
        const QString svg = m_dir.filePath(QStringLiteral("chart.svg"));
        QCOMPARE(runHeadroom({QStringLiteral("render"), kExample, QStringLiteral("--out"), svg}).exitCode, 0);
        QFile svgFile(svg);
        QVERIFY(svgFile.open(QIODevice::ReadOnly));
        QVERIFY(svgFile.readAll().contains("<svg"));
        const QString pdf = m_dir.filePath(QStringLiteral("chart.pdf"));
        QCOMPARE(runHeadroom({QStringLiteral("render"), kExample, QStringLiteral("--out"), pdf}).exitCode, 0);
        QFile pdfFile(pdf);
        QVERIFY(pdfFile.open(QIODevice::ReadOnly));
        QVERIFY(pdfFile.readAll().startsWith("%PDF"));
    }

    void comparisonFile()
    {
        const QString path = write("compare.headroom.json", R"({"format": "headroom-comparison", "version": 1,
            "current": {"format": "headroom-scenario", "version": 1, "name": "current",
                        "train": {"method": "lora"}, "gpus": ["rtx-4090"]},
            "pins": [{"format": "headroom-scenario", "version": 1, "train": {"method": "full"}},
                     {"format": "headroom-scenario", "version": 1, "train": {"method": "qlora"}}]})");
        const QString out = m_dir.filePath(QStringLiteral("compare.svg"));
        const Run run = runHeadroom({QStringLiteral("render"), path, QStringLiteral("--out"), out});
        QVERIFY2(run.exitCode == 0, qPrintable(run.err));
        QFile file(out);
        QVERIFY(file.open(QIODevice::ReadOnly));
        const QByteArray svg = file.readAll();
        QVERIFY(svg.contains("Current"));
        QVERIFY(svg.contains("#1 full FT"));
        QVERIFY(svg.contains("#2 QLoRA"));
    }

    void badInputExits2WithOneLine_data()
    {
        QTest::addColumn<QStringList>("arguments");
        QTest::addColumn<QString>("expected");
        const QString out = QStringLiteral("bad.png");
        QTest::newRow("no-out") << QStringList{kExample} << QStringLiteral("usage");
        QTest::newRow("bad-extension") << QStringList{kExample, QStringLiteral("--out"), QStringLiteral("x.gif")}
                                       << QStringLiteral("--out");
        QTest::newRow("bad-theme") << QStringList{kExample, QStringLiteral("--out"), out, QStringLiteral("--theme"),
                                                  QStringLiteral("blue")} << QStringLiteral("--theme");
        QTest::newRow("bad-view") << QStringList{kExample, QStringLiteral("--out"), out, QStringLiteral("--view"),
                                                 QStringLiteral("pie")} << QStringLiteral("--view");
        QTest::newRow("bad-width") << QStringList{kExample, QStringLiteral("--out"), out, QStringLiteral("--width"),
                                                  QStringLiteral("wide")} << QStringLiteral("--width");
        QTest::newRow("bad-scale") << QStringList{kExample, QStringLiteral("--out"), out, QStringLiteral("--scale"),
                                                  QStringLiteral("100")} << QStringLiteral("--scale");
        QTest::newRow("bad-unit") << QStringList{kExample, QStringLiteral("--out"), out, QStringLiteral("--unit"),
                                                 QStringLiteral("TB")} << QStringLiteral("--unit");
        QTest::newRow("bad-set") << QStringList{kExample, QStringLiteral("--out"), out, QStringLiteral("--set"),
                                                QStringLiteral("train.micro_batc=2")} << QStringLiteral("train.micro_batc");
        QTest::newRow("missing-file") << QStringList{QStringLiteral("/nonexistent/x.headroom.json"),
                                                     QStringLiteral("--out"), out} << QStringLiteral("cannot open");
    }

    void badInputExits2WithOneLine()
    {
        QFETCH(QStringList, arguments);
        QFETCH(QString, expected);
        for (QString &argument : arguments)
            if (argument == QLatin1String("bad.png"))
                argument = m_dir.filePath(argument);
        const Run run = runHeadroom(QStringList{QStringLiteral("render")} + arguments);
        QCOMPARE(run.exitCode, 2);
        QVERIFY2(run.err.contains(expected), qPrintable(run.err));
        QVERIFY2(run.err.trimmed().count(QLatin1Char('\n')) == 0, qPrintable(run.err));
        QVERIFY(!QFile::exists(m_dir.filePath(QStringLiteral("bad.png"))));
    }
};

QTEST_MAIN(TestRender)
#include "tst_render.moc"
