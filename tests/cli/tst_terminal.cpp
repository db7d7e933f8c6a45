// SPDX-License-Identifier: GPL-3.0-or-later
// What the command line prints and writes cannot act on a terminal or break a viewer: every
// command and format, fed files whose names, keys and values carry ESC (CSI, OSC), C1 controls,
// BEL, BS, CR, NUL and U+202E, prints none of them raw on success (JSON still reads back as the
// same document), and every SVG it writes passes an XML parser.
#include "processutil.h"

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QXmlStreamReader>
#include <QtTest>
#include <nlohmann/json.hpp>
#include <string>

using headroom::test::Run;
using nlohmann::json;

namespace {

/// ESC [ (CSI), ESC ] ... BEL (OSC: retitles the terminal), the one-byte CSI of C1, BEL, BS, CR,
/// NUL and the right-to-left override.
const std::string kHostile = std::string("\x1b[31mred \x1b]0;owned\x07 \xc2\x9b" "2J bell\x07 bs\x08 cr\r nul") +
                             std::string(1, '\0') + " \xe2\x80\xae" "evil";
/// The same without NUL, for file and folder names.
const std::string kHostileName = "\x1b[31mred \x1b]0;owned\x07 \xc2\x9b" "2J \x08\r \xe2\x80\xae" "evil";

/// Where the first character a terminal would act on is, or -1: bytes below 0x20 but the line
/// break, DEL, C1 controls (U+0080-U+009F), bidirectional embeddings, overrides and isolates, and
/// bytes that are not UTF-8.
int firstUnsafe(const QByteArray &bytes)
{
    for (qsizetype i = 0; i < bytes.size();) {
        const auto c = static_cast<unsigned char>(bytes[i]);
        if (c == '\n' || (c >= 0x20 && c < 0x7F)) {
            ++i;
            continue;
        }
        if (c < 0x20 || c == 0x7F)
            return int(i);
        const int length = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC2 ? 2 : 0;
        if (length == 0 || i + length > bytes.size())
            return int(i);
        std::uint32_t cp = c & (length == 2 ? 0x1F : length == 3 ? 0x0F : 0x07);
        for (int k = 1; k < length; ++k) {
            const auto next = static_cast<unsigned char>(bytes[i + k]);
            if ((next & 0xC0) != 0x80)
                return int(i);
            cp = (cp << 6) | (next & 0x3F);
        }
        if ((cp >= 0x80 && cp <= 0x9F) || (cp >= 0x202A && cp <= 0x202E) || (cp >= 0x2066 && cp <= 0x2069))
            return int(i);
        i += length;
    }
    return -1;
}

/// The raw bytes of a run's standard output (QString would hide invalid bytes).
struct RawRun
{
    int exitCode = -1;
    QByteArray out;
    QByteArray err;
};

RawRun runRaw(const QStringList &arguments)
{
    QProcess process;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.remove(QStringLiteral("DISPLAY"));
    env.remove(QStringLiteral("WAYLAND_DISPLAY"));
    env.remove(QStringLiteral("QT_QPA_PLATFORM"));
    process.setProcessEnvironment(env);
    process.start(QStringLiteral(HEADROOM_BINARY), arguments);
    if (!process.waitForFinished(120000))
        return {};
    return {process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1,
            process.readAllStandardOutput(), process.readAllStandardError()};
}

} // namespace

class TestTerminal : public QObject
{
    Q_OBJECT
private:
    QTemporaryDir m_dir;

    QString path(const QString &name) const { return m_dir.filePath(name); }
    void write(const QString &name, const QByteArray &content)
    {
        QFile file(path(name));
        QVERIFY(file.open(QIODevice::WriteOnly));
        QCOMPARE(file.write(content), qint64(content.size()));
    }
    void write(const QString &name, const json &doc) { write(name, QByteArray::fromStdString(doc.dump())); }

private slots:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        const json train = {{"format", "headroom-scenario"}, {"version", 1}, {"name", kHostile},
                            {"model", {{"preset", "llama-2-7b"}}},
                            {"train", {{"method", "lora"}, {"micro_batch", 1}, {"seq_len", 512}}},
                            {"gpus", {"rtx-4090"}}};
        write(QStringLiteral("train.json"), train);
        json serve = {{"format", "headroom-scenario"}, {"version", 1}, {"name", kHostile},
                      {"model", {{"preset", "llama-3-8b"}}}, {"task", "inference"},
                      {"framework", {{"name", "vllm"}}}, {"gpus", {"h100-80gb"}}};
        write(QStringLiteral("serve.json"), serve);
        // A serving engine's start-up log whose model name carries the escapes (issue 28).
        write(QStringLiteral("hostile.log"),
              QByteArray::fromStdString("INFO Initializing a V1 LLM engine (v0.10.1) with config: model='" + kHostile +
                                        "', tensor_parallel_size=1\nINFO Available KV cache memory: 2.30 GiB\n"));
        // A measurement case whose scenario name, source and hardware carry the escapes.
        QFile measured(QStringLiteral(HEADROOM_SOURCE_DIR "/tests/data/measured/lg-04.json"));
        QVERIFY(measured.open(QIODevice::ReadOnly));
        json measuredCase = json::parse(measured.readAll().toStdString());
        measuredCase["scenario"]["name"] = kHostile;
        measuredCase["source"]["repo"] = kHostile;
        measuredCase["hardware"] = kHostile;
        QVERIFY(QDir(m_dir.path()).mkpath(QStringLiteral("cases")));
        write(QStringLiteral("cases/lg-04.json"), measuredCase);
        // A config.json in a folder whose name carries the escapes (the title's model name).
        const QString folder = QString::fromStdString(kHostileName);
        QVERIFY(QDir(m_dir.path()).mkpath(folder));
        QFile config(QStringLiteral(HEADROOM_SOURCE_DIR "/tests/data/configs/llama-3.2-1b.json"));
        QVERIFY(config.open(QIODevice::ReadOnly));
        write(folder + QStringLiteral("/config.json"), config.readAll());
        // A training config with an unknown key, a value that becomes a warning and a file name,
        // all with the escapes.
        const QByteArray escaped = QByteArray::fromStdString(json(kHostileName).dump());
        write(QString::fromStdString(kHostileName) + QStringLiteral(".yml"),
              "base_model: NousResearch/Meta-Llama-3-8B\nadapter: lora\nmicro_batch_size: 1\n"
              "sequence_len: 512\noptimizer: " + escaped + "\n" + escaped + ": 1\n");
        // A lesson and a comparison, for the SVGs.
        json lesson = {{"format", "headroom-lesson"}, {"version", 1}, {"title", kHostile},
                       {"steps", {{{"title", kHostile}, {"caption", kHostile}, {"scenario", train}}}}};
        write(QStringLiteral("lesson.json"), lesson);
        json pinned = train;
        pinned["name"] = kHostile + " pin";
        write(QStringLiteral("comparison.json"),
              json{{"format", "headroom-comparison"}, {"version", 1}, {"current", train}, {"pins", {pinned}}});
    }

    void successOutputIsEscaped_data()
    {
        QTest::addColumn<QStringList>("arguments"); // @ is the temporary folder
        QTest::addColumn<bool>("isJson");
        const QString hostileFolder = QStringLiteral("@/") + QString::fromStdString(kHostileName);
        const QString trainConfig = hostileFolder + QStringLiteral(".yml");
        const QString modelConfig = hostileFolder + QStringLiteral("/config.json");
        const auto row = [](const char *name, const QStringList &arguments, bool isJson) {
            QTest::newRow(name) << arguments << isJson;
        };
        for (const char *format : {"text", "json", "csv"}) {
            row(qPrintable(QStringLiteral("estimate-%1").arg(QLatin1String(format))),
                {QStringLiteral("estimate"), QStringLiteral("@/train.json"), QStringLiteral("--format"),
                 QLatin1String(format)},
                QLatin1String(format) == QLatin1String("json"));
            row(qPrintable(QStringLiteral("estimate-model-config-%1").arg(QLatin1String(format))),
                {QStringLiteral("estimate"), QStringLiteral("@/train.json"), QStringLiteral("--model-config"),
                 modelConfig, QStringLiteral("--format"), QLatin1String(format)},
                QLatin1String(format) == QLatin1String("json"));
            row(qPrintable(QStringLiteral("estimate-train-config-%1").arg(QLatin1String(format))),
                {QStringLiteral("estimate"), QStringLiteral("--train-config"), trainConfig,
                 QStringLiteral("--format"), QLatin1String(format)},
                QLatin1String(format) == QLatin1String("json"));
            row(qPrintable(QStringLiteral("frontier-%1").arg(QLatin1String(format))),
                {QStringLiteral("frontier"), QStringLiteral("@/serve.json"), QStringLiteral("--format"),
                 QLatin1String(format)},
                QLatin1String(format) == QLatin1String("json"));
        }
        for (const char *format : {"text", "json"}) {
            const bool isJson = QLatin1String(format) == QLatin1String("json");
            row(qPrintable(QStringLiteral("advise-%1").arg(QLatin1String(format))),
                {QStringLiteral("advise"), QStringLiteral("@/train.json"), QStringLiteral("--gpu"),
                 QStringLiteral("rtx-4090"), QStringLiteral("--format"), QLatin1String(format)},
                isJson);
            row(qPrintable(QStringLiteral("solve-%1").arg(QLatin1String(format))),
                {QStringLiteral("solve"), QStringLiteral("@/train.json"), QStringLiteral("--for"),
                 QStringLiteral("max-micro-batch"), QStringLiteral("--gpu"), QStringLiteral("rtx-4090"),
                 QStringLiteral("--format"), QLatin1String(format)},
                isJson);
            row(qPrintable(QStringLiteral("solve-serving-%1").arg(QLatin1String(format))),
                {QStringLiteral("solve"), QStringLiteral("@/serve.json"), QStringLiteral("--for"),
                 QStringLiteral("max-concurrency"), QStringLiteral("--gpu"), QStringLiteral("h100-80gb"),
                 QStringLiteral("--format"), QLatin1String(format)},
                isJson);
            row(qPrintable(QStringLiteral("compare-%1").arg(QLatin1String(format))),
                {QStringLiteral("compare"), QStringLiteral("@/hostile.log"), QStringLiteral("--model"),
                 QStringLiteral("llama-3.1-8b"), QStringLiteral("--gpu"), QStringLiteral("rtx-4090"),
                 QStringLiteral("--format"), QLatin1String(format)},
                isJson);
            row(qPrintable(QStringLiteral("validate-%1").arg(QLatin1String(format))),
                {QStringLiteral("validate"), QStringLiteral("@/cases"), QStringLiteral("--format"),
                 QLatin1String(format)},
                isJson);
        }
    }
    void successOutputIsEscaped()
    {
        QFETCH(QStringList, arguments);
        QFETCH(bool, isJson);
        for (QString &argument : arguments)
            if (argument.startsWith(QLatin1Char('@')))
                argument.replace(0, 1, m_dir.path());
        const RawRun run = runRaw(arguments);
        QVERIFY2(run.exitCode == 0, run.err.constData());
        QVERIFY(!run.out.isEmpty());
        const int at = firstUnsafe(run.out);
        QVERIFY2(at < 0, qPrintable(QStringLiteral("byte 0x%1 at %2 in: %3")
                                        .arg(at < 0 ? 0 : static_cast<unsigned char>(run.out[at]), 2, 16)
                                        .arg(at)
                                        .arg(QString::fromUtf8(run.out.mid(std::max(0, at - 60), 120)))));
        QCOMPARE(firstUnsafe(run.err), -1);
        // JSON is still JSON: the escapes the filter writes are JSON's own.
        if (isJson) {
            const json doc = json::parse(run.out.toStdString(), nullptr, false);
            QVERIFY2(!doc.is_discarded(), run.out.left(400).constData());
        }
    }

    void hostileTextIsShownEscaped()
    {
        // Not vacuous: the name and the file's keys are printed, as escapes.
        const RawRun estimate = runRaw({QStringLiteral("estimate"), path(QStringLiteral("train.json"))});
        QCOMPARE(estimate.exitCode, 0);
        QVERIFY2(estimate.out.contains("\\x1b[31mred \\x1b]0;owned\\x07 \\u009b2J bell\\x07 bs\\x08 cr\\r nul\\x00 \\u202eevil"),
                 estimate.out.left(600).constData());
        const RawRun imported = runRaw({QStringLiteral("estimate"), QStringLiteral("--train-config"),
                                        path(QString::fromStdString(kHostileName) + QStringLiteral(".yml"))});
        QVERIFY2(imported.exitCode == 0, imported.err.constData());
        QVERIFY2(imported.out.contains("Training config: ") && imported.out.contains("\\x1b[31mred"),
                 imported.out.left(600).constData());
        QVERIFY2(imported.out.contains("warning: optimizer"), imported.out.constData());
        QVERIFY2(imported.out.contains("ignored: "), imported.out.constData());
        // JSON output keeps the very name (the escapes are JSON escapes).
        const RawRun json = runRaw({QStringLiteral("estimate"), QStringLiteral("--train-config"),
                                    path(QString::fromStdString(kHostileName) + QStringLiteral(".yml")),
                                    QStringLiteral("--format"), QStringLiteral("json")});
        const auto doc = nlohmann::json::parse(json.out.toStdString());
        QVERIFY(doc["imported"]["files"][0]["file"].get<std::string>().find(kHostileName) != std::string::npos);
    }

    void usageKeepsItsLines()
    {
        // estimate's usage has two forms on two lines: they were printed as one line with a
        // literal "\n" between them once every error was escaped.
        const RawRun run = runRaw({QStringLiteral("estimate")});
        QCOMPARE(run.exitCode, 2);
        QVERIFY2(!run.err.contains("\\n"), run.err.constData());
        const QList<QByteArray> lines = run.err.trimmed().split('\n');
        QCOMPARE(lines.size(), 2);
        QVERIFY2(lines.at(0).startsWith("headroom: usage: headroom estimate FILE"), lines.at(0).constData());
        QVERIFY2(lines.at(1).trimmed().startsWith("headroom estimate [FILE] --train-config"), lines.at(1).constData());
    }

    void tableCellsFromFilesAreShort()
    {
        // Issue 29: a 5,000-character source repository made every line of validate's summary
        // table 5,000 characters wide; a cell shows 57 characters of it and "...".
        QFile measured(QStringLiteral(HEADROOM_SOURCE_DIR "/tests/data/measured/lg-04.json"));
        QVERIFY(measured.open(QIODevice::ReadOnly));
        json measuredCase = json::parse(measured.readAll().toStdString());
        measuredCase["source"]["repo"] = std::string(5000, 'r');
        QVERIFY(QDir(m_dir.path()).mkpath(QStringLiteral("long-source")));
        write(QStringLiteral("long-source/lg-04.json"), measuredCase);
        const RawRun run = runRaw({QStringLiteral("validate"), path(QStringLiteral("long-source"))});
        QVERIFY2(run.exitCode == 0, run.err.constData());
        QVERIFY2(run.out.contains(QByteArray(57, 'r') + "...") && !run.out.contains(QByteArray(58, 'r')),
                 run.out.left(2000).constData());
        for (const QByteArray &line : run.out.split('\n'))
            QVERIFY2(line.size() < 200, line.left(300).constData());
    }

    void xmlParserRefusesRawControls()
    {
        // The check below can fail: a raw ESC in <title> is not XML 1.0.
        QXmlStreamReader reader(QByteArray("<svg><title>a\x1b[31m</title></svg>"));
        while (!reader.atEnd())
            reader.readNext();
        QVERIFY(reader.hasError());
    }

    void everySvgIsXml_data()
    {
        QTest::addColumn<QStringList>("arguments");
        QTest::addColumn<bool>("drawsNames"); // the pins' names, the step's title and caption
        QTest::newRow("chart") << QStringList{QStringLiteral("train.json")} << false;
        QTest::newRow("phases") << QStringList{QStringLiteral("train.json"), QStringLiteral("--view"), QStringLiteral("phases")} << false;
        QTest::newRow("comparison") << QStringList{QStringLiteral("comparison.json")} << true;
        QTest::newRow("lesson-step") << QStringList{QStringLiteral("lesson.json"), QStringLiteral("--step"), QStringLiteral("1")} << true;
    }
    void everySvgIsXml()
    {
        QFETCH(QStringList, arguments);
        QFETCH(bool, drawsNames);
        const QString out = path(QStringLiteral("out-%1.svg").arg(QLatin1String(QTest::currentDataTag())));
        QStringList full{QStringLiteral("render"), path(arguments.takeFirst()), QStringLiteral("--out"), out};
        full += arguments;
        const RawRun run = runRaw(full);
        QVERIFY2(run.exitCode == 0, run.err.constData());
        QFile file(out);
        QVERIFY(file.open(QIODevice::ReadOnly));
        const QByteArray svg = file.readAll();
        QXmlStreamReader reader(svg);
        QString title;
        while (!reader.atEnd()) {
            reader.readNext();
            if (reader.isStartElement() && reader.name() == QLatin1String("title"))
                title = reader.readElementText();
        }
        QVERIFY2(!reader.hasError(), qPrintable(reader.errorString() + QStringLiteral(" at line %1").arg(reader.lineNumber())));
        if (drawsNames) {
            // The hostile text did reach the drawing: as escapes in text and title, and as U+FFFD
            // where a control character was drawn.
            QVERIFY(svg.contains("\\x1b[31mred"));
            QVERIFY(svg.contains("\xef\xbf\xbd"));
        }
        if (QByteArray(QTest::currentDataTag()) == "lesson-step")
            QVERIFY2(title.contains(QLatin1String("\\x1b[31mred")), qPrintable(title));
    }
};

QTEST_GUILESS_MAIN(TestTerminal)
#include "tst_terminal.moc"
