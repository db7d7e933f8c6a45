// SPDX-License-Identifier: GPL-3.0-or-later
// The window's file handling, offscreen: open, save, title and modified marker, the question
// before closing, recent files, drag-and-drop, model import and the user's own GPUs.
#include "uitestutil.h"
#include "fileutil.h"
#include "chart/budgetchart.h"
#include "document/documentcontroller.h"
#include "document/documentio.h"
#include "window/mainwindow.h"
#include "controls/missingfieldsdialog.h"
#include "document/scenariomodel.h"
#include "controls/usergpudialog.h"

#include <QDoubleSpinBox>
#include <QDropEvent>
#include <QFile>
#include <QLineEdit>
#include <QLineSeries>
#include <QListWidget>
#include <QMimeData>
#include <QPushButton>
#include <QSettings>
#include <QSpinBox>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QUndoStack>
#include <QUrl>
#include <QtTest>

using namespace headroom;

namespace {

const QString kExample = QStringLiteral(HEADROOM_SOURCE_DIR "/examples/llama2-7b-lora.headroom.json");
const QString kConfigs = QStringLiteral(HEADROOM_SOURCE_DIR "/tests/data/configs/");

/// Collects what the window would show in a message box.
struct Messages
{
    QStringList texts;
    void attach(DocumentController *document)
    {
        document->setMessageHandler([this](const QString &text) { texts << text; });
    }
};

QStringList lineNames(const MainWindow &w)
{
    QStringList names;
    for (QLineSeries *line : w.chart()->capacitySeries())
        names << line->name();
    return names;
}

void sendDrop(QWidget *target, const QString &path)
{
    QMimeData mime;
    mime.setUrls({QUrl::fromLocalFile(path)});
    QDragEnterEvent enter(QPoint(10, 10), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
    QCoreApplication::sendEvent(target, &enter);
    QVERIFY(enter.isAccepted());
    QDropEvent drop(QPointF(10, 10), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
    QCoreApplication::sendEvent(target, &drop);
}

} // namespace

class TestFileUi : public QObject
{
    Q_OBJECT
private:
    QTemporaryDir m_dir;

    QString write(const char *name, const QByteArray &content)
    {
        return headroom::test::writeFile(m_dir, name, content);
    }

private slots:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        headroom::test::isolateSettings("tst_fileui");
    }
    void init() { QSettings().clear(); }

    void openShowsTheFileAndIsClean()
    {
        MainWindow w;
        w.show();
        QVERIFY(w.document()->openFile(kExample));
        QCOMPARE(w.model()->scenario().name, std::string("Llama 2 7B, LoRA r8 on q,v"));
        QVERIFY(w.windowTitle().startsWith(QLatin1String("llama2-7b-lora.headroom.json")));
        QVERIFY(!w.isWindowModified());
        QCOMPARE(w.document()->recentFiles().value(0), QFileInfo(kExample).absoluteFilePath());
        // An edit marks it modified; undoing back to the saved state clears the mark.
        w.model()->apply(QStringLiteral("batch"), [](Scenario &s) { s.train.microBatch = 1; });
        QVERIFY(w.isWindowModified());
        w.model()->undoStack()->undo();
        QVERIFY(!w.isWindowModified());
    }

    void saveAsAndReopen()
    {
        const QString path = m_dir.filePath(QStringLiteral("saved.headroom.json"));
        Scenario saved;
        {
            MainWindow w;
            QVERIFY(w.document()->openFile(kExample));
            w.model()->apply(QStringLiteral("seq"), [](Scenario &s) { s.train.seqLen = 4096; });
            QVERIFY(w.isWindowModified());
            QVERIFY(w.document()->saveAs(path));
            QVERIFY(!w.isWindowModified());
            QVERIFY(w.windowTitle().startsWith(QLatin1String("saved.headroom.json")));
            saved = w.model()->scenario();
        }
        MainWindow again;
        QVERIFY(again.document()->openFile(path));
        QVERIFY(again.model()->scenario() == saved);
        QCOMPARE(again.document()->recentFiles().value(0), path);
    }

    void comparisonReopensAsTheSameComparison()
    {
        const QString path = m_dir.filePath(QStringLiteral("comparison.headroom.json"));
        std::vector<Scenario> pins;
        Scenario current;
        {
            MainWindow w;
            QVERIFY(w.document()->openFile(kExample));
            w.model()->pinCurrent();
            w.model()->apply(QStringLiteral("eager"), [](Scenario &s) { s.kernels.attention = Attention::Eager; });
            w.model()->pinCurrent();
            QVERIFY(w.isWindowModified()); // pins changed since the file was opened
            w.model()->apply(QStringLiteral("batch"), [](Scenario &s) { s.train.microBatch = 8; });
            QVERIFY(w.document()->saveAs(path));
            pins = documentOf(*w.model()).pins;
            current = w.model()->scenario();
        }
        MainWindow again;
        QVERIFY(again.document()->openFile(path));
        QCOMPARE(int(again.model()->pins().size()), 2);
        QVERIFY(documentOf(*again.model()).pins == pins);
        QVERIFY(again.model()->scenario() == current);
        QVERIFY(!again.isWindowModified());
        // The names given when pinned travel with the file.
        QCOMPARE(again.model()->pinLabel(0), QStringLiteral("#1 LoRA \u00b7 bf16 \u00b7 mb 4"));
        QCOMPARE(again.model()->pinLabel(1), QStringLiteral("#2 eager"));
    }

    void badFileKeepsTheScenarioAndNamesTheKey()
    {
        const QString path = write("bad.headroom.json", R"({"format": "headroom-scenario", "version": 1,
            "train": {"micro_batch": 4, "optimiser": "adamw"}})");
        MainWindow w;
        Messages messages;
        messages.attach(w.document());
        w.model()->apply(QStringLiteral("batch"), [](Scenario &s) { s.train.microBatch = 5; });
        const Scenario before = w.model()->scenario();
        const QString title = w.windowTitle();
        QVERIFY(!w.document()->openFile(path));
        QCOMPARE(messages.texts.size(), 1);
        QVERIFY2(messages.texts.first().contains(QLatin1String("train.optimiser")), qPrintable(messages.texts.first()));
        QVERIFY(messages.texts.first().contains(QLatin1String("bad.headroom.json")));
        QVERIFY(w.model()->scenario() == before);
        QCOMPARE(w.windowTitle(), title);
        QVERIFY(w.document()->filePath().isEmpty());
    }

    void closingWithUnsavedChangesAsks()
    {
        const QString path = m_dir.filePath(QStringLiteral("ask.headroom.json"));
        QVERIFY(QFile::copy(kExample, path));
        MainWindow w;
        w.show();
        QVERIFY(w.document()->openFile(path));
        w.model()->apply(QStringLiteral("batch"), [](Scenario &s) { s.train.microBatch = 1; });
        int asked = 0;
        QMessageBox::StandardButton answer = QMessageBox::Cancel;
        w.document()->setSaveQuestion([&] { ++asked; return answer; });
        QVERIFY(!w.close()); // Cancel keeps the window
        QCOMPARE(asked, 1);
        QVERIFY(w.isVisible());
        answer = QMessageBox::Save; // Save writes the file, then closes
        QVERIFY(w.close());
        QCOMPARE(asked, 2);
        QCOMPARE(readDocumentFile(path).current.train.microBatch, 1u);
    }

    void discardClosesWithoutSaving()
    {
        const QString path = m_dir.filePath(QStringLiteral("discard.headroom.json"));
        QVERIFY(QFile::copy(kExample, path));
        MainWindow w;
        w.show();
        QVERIFY(w.document()->openFile(path));
        w.model()->apply(QStringLiteral("batch"), [](Scenario &s) { s.train.microBatch = 1; });
        w.document()->setSaveQuestion([] { return QMessageBox::Discard; });
        QVERIFY(w.close());
        QCOMPARE(readDocumentFile(path).current.train.microBatch, 4u);
    }

    void dropOpensAScenario()
    {
        MainWindow w;
        w.show();
        sendDrop(&w, kExample);
        QCOMPARE(w.document()->filePath(), QFileInfo(kExample).absoluteFilePath());
        QCOMPARE(w.model()->scenario().train.lora.rank, 8);
    }

    void dropImportsAConfig()
    {
        MainWindow w;
        w.show();
        sendDrop(&w, kConfigs + QStringLiteral("mistral-7b-v0.1.json"));
        QCOMPARE(w.model()->scenario().model.slidingWindow, 4096);
        QVERIFY(w.document()->filePath().isEmpty());
    }

    void importConfigIsOneUndoStep_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<int>("layers");
        QTest::addColumn<int>("hidden");
        QTest::addColumn<int>("kvHeads");
        QTest::newRow("llama-2-7b") << QStringLiteral("llama-2-7b.json") << 32 << 4096 << 32;
        QTest::newRow("qwen2.5-0.5b") << QStringLiteral("qwen2.5-0.5b.json") << 24 << 896 << 2;
        QTest::newRow("gpt2") << QStringLiteral("gpt2.json") << 12 << 768 << 12;
    }

    void importConfigIsOneUndoStep()
    {
        QFETCH(QString, file);
        QFETCH(int, layers);
        QFETCH(int, hidden);
        QFETCH(int, kvHeads);
        MainWindow w;
        w.show();
        // Within every imported model's positions (GPT-2 and OPT have 1,024 or 2,048 learned ones).
        w.model()->apply(QStringLiteral("seq"), [](Scenario &s) { s.train.seqLen = 1024; });
        const Scenario before = w.model()->scenario();
        const int steps = w.model()->undoStack()->count();
        QVERIFY(w.document()->importModel(kConfigs + file));
        const ModelArch &arch = w.model()->scenario().model;
        QCOMPARE(arch.layers, layers);
        QCOMPARE(arch.hidden, hidden);
        QCOMPARE(arch.kvHeads, kvHeads);
        QVERIFY(arch.preset.empty());
        QCOMPARE(w.model()->undoStack()->count(), steps + 1);
        QVERIFY(w.model()->estimateError().isEmpty());
        w.model()->undoStack()->undo();
        QVERIFY(w.model()->scenario() == before);
    }

    void importAsksForMissingFields()
    {
        const QString path = write("config.json", R"({"model_type": "llama", "hidden_size": 2048,
            "intermediate_size": 5632, "num_attention_heads": 32, "vocab_size": 32000})");
        MainWindow w;
        std::vector<std::string> asked;
        w.document()->setMissingFieldsPrompt([&](const QString &, const std::vector<std::string> &fields,
                                                 nlohmann::json &config) {
            asked = fields;
            config["num_hidden_layers"] = 22;
            return true;
        });
        QVERIFY(w.document()->importModel(path));
        QCOMPARE(asked, std::vector<std::string>{"num_hidden_layers"});
        QCOMPARE(w.model()->scenario().model.layers, 22);
        QCOMPARE(w.model()->scenario().model.hidden, 2048);

        // Cancelled: nothing changes and nothing is reported.
        Messages messages;
        messages.attach(w.document());
        const Scenario before = w.model()->scenario();
        w.document()->setMissingFieldsPrompt([](const QString &, const std::vector<std::string> &,
                                                nlohmann::json &) { return false; });
        QVERIFY(!w.document()->importModel(path));
        QVERIFY(w.model()->scenario() == before);
        QVERIFY(messages.texts.isEmpty());
    }

    void missingFieldsDialogFillsTheConfig()
    {
        MissingFieldsDialog dialog(QStringLiteral("config.json"), {"model_type", "num_hidden_layers"});
        auto *layers = qobject_cast<QSpinBox *>(dialog.field("num_hidden_layers"));
        QVERIFY(layers);
        layers->setValue(40);
        nlohmann::json config = nlohmann::json::object();
        dialog.fill(config);
        QCOMPARE(config.at("num_hidden_layers").get<int>(), 40);
        QVERIFY(config.at("model_type").is_string());
    }

    void unreadableModelFileIsReported()
    {
        const QString path = write("broken.safetensors", QByteArray("\x10\x00\x00", 3));
        MainWindow w;
        Messages messages;
        messages.attach(w.document());
        const Scenario before = w.model()->scenario();
        QVERIFY(!w.document()->importModel(path));
        QCOMPARE(messages.texts.size(), 1);
        QVERIFY(messages.texts.first().contains(QLatin1String("broken.safetensors")));
        QVERIFY(w.model()->scenario() == before);
    }

    void userGpuPersistsAcrossARestart()
    {
        {
            MainWindow w;
            w.show();
            w.model()->setUnit(Unit::GB); // the capacity is typed in the window's unit
            UserGpuDialog dialog(w.model(), &w);
            dialog.nameField()->setText(QStringLiteral("Lab card"));
            dialog.capacityField()->setValue(40);
            dialog.addButton()->click();
            QCOMPARE(dialog.list()->count(), 1);
            QVERIFY2(lineNames(w).contains(QStringLiteral("Lab card")), qPrintable(lineNames(w).join(u',')));
            w.close();
        }
        MainWindow again;
        QCOMPARE(int(again.model()->userGpus().size()), 1);
        QCOMPARE(again.model()->userGpus().front().bytes, std::uint64_t(40'000'000'000));
        QVERIFY(lineNames(again).contains(QStringLiteral("Lab card")));
        // Hidden and removed through the dialog, also persisted.
        UserGpuDialog dialog(again.model(), &again);
        dialog.list()->item(0)->setCheckState(Qt::Unchecked);
        QVERIFY(!lineNames(again).contains(QStringLiteral("Lab card")));
        QVERIFY(!loadUserGpus().front().shown);
        dialog.list()->setCurrentRow(0);
        dialog.removeButton()->click();
        QVERIFY(loadUserGpus().empty());
    }

    void exportsFromTheWindow()
    {
        MainWindow w;
        w.show();
        QVERIFY(w.document()->openFile(kExample));
        for (const char *name : {"w.png", "w.svg", "w.pdf", "w.csv", "w.json"}) {
            const QString path = m_dir.filePath(QString::fromLatin1(name));
            QVERIFY2(w.document()->exportTo(path, {{640, 360}, 1, false}), name);
            QVERIFY(QFileInfo(path).size() > 100);
        }
        QCOMPARE(QImage(m_dir.filePath(QStringLiteral("w.png"))).size(), QSize(640, 360));
    }
};

QTEST_MAIN(TestFileUi)
#include "tst_fileui.moc"
