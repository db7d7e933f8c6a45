// SPDX-License-Identifier: GPL-3.0-or-later
// The window's framework controls, offscreen: choosing a framework applies its behaviours (and
// the bars change), the offloading and compile toggles, the implementation details, and File >
// Import training config with drag and drop.
#include "uitestutil.h"
#include "controls/controlpanel.h"
#include "controls/frameworkgroup.h"
#include "document/documentcontroller.h"
#include "document/scenariomodel.h"
#include "document/trainconfigimporter.h"
#include "window/mainwindow.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDropEvent>
#include <QLabel>
#include <QLineEdit>
#include <QMimeData>
#include <QDir>
#include <QSettings>
#include <QTemporaryFile>
#include <QUndoStack>
#include <QUrl>
#include <QtTest>

using namespace headroom;

namespace {

const QString kConfigs = QStringLiteral(HEADROOM_SOURCE_DIR "/examples/train-configs/");

FrameworkGroup *frameworkGroup(const MainWindow &w) { return w.controls()->findChild<FrameworkGroup *>(); }

void choose(QComboBox *combo, int value)
{
    const int index = combo->findData(value);
    QVERIFY(index >= 0);
    combo->setCurrentIndex(index);
    emit combo->activated(index);
}

} // namespace

class TestFrameworkUi : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase() { headroom::test::isolateSettings("tst_frameworkui"); }
    void init() { QSettings().clear(); }

    void choosingAFrameworkAppliesItsBehaviours()
    {
        MainWindow w;
        w.model()->apply(QStringLiteral("start"), [](Scenario &s) {
            s = Scenario{};
            s.model = builtinCatalog().findModel("llama-3.1-8b")->arch;
            s.train.method = Method::Lora;
            s.train.lora.rank = 32;
        });
        FrameworkGroup *group = frameworkGroup(w);
        QVERIFY(group);
        const std::uint64_t before = w.model()->estimate().peak.allocatedBytes;
        const int steps = w.model()->undoStack()->count();
        choose(group->framework(), int(Framework::Torchtune));
        const Scenario &s = w.model()->scenario();
        QCOMPARE(s.framework.name, Framework::Torchtune);
        QCOMPARE(s.kernels.loss, Loss::Chunked);          // torchtune's chunked loss
        QCOMPARE(s.train.lora.dtype, DType::BF16);       // adapters in the recipe's dtype
        QCOMPARE(s.train.lora.rank, 32);                  // the user's own settings stay
        QVERIFY(w.model()->estimate().peak.allocatedBytes != before); // the bars change live
        QCOMPARE(w.model()->undoStack()->count(), steps + 1);
        QVERIFY2(group->keeps()->text().contains(QLatin1String("torchtune keeps")), qPrintable(group->keeps()->text()));
        w.model()->undoStack()->undo();
        QCOMPARE(w.model()->scenario().framework.name, Framework::None);
        QCOMPARE(group->framework()->currentData().toInt(), int(Framework::None));
    }

    void versionSelectsBehaviour()
    {
        MainWindow w;
        w.model()->apply(QStringLiteral("start"), [](Scenario &s) { s.task = Task::Inference; });
        FrameworkGroup *group = frameworkGroup(w);
        choose(group->framework(), int(Framework::HfGenerate));
        QCOMPARE(w.model()->scenario().inference.promptLogits, PromptLogits::Last);
        group->version()->setText(QStringLiteral("4.44"));
        emit group->version()->editingFinished();
        QCOMPARE(w.model()->scenario().framework.version, std::string("4.44"));
        QCOMPARE(w.model()->scenario().inference.promptLogits, PromptLogits::All);
    }

    void offloadingAndCompileToggles()
    {
        MainWindow w;
        w.model()->apply(QStringLiteral("start"), [](Scenario &s) {
            s = Scenario{};
            s.model = builtinCatalog().findModel("llama-3.2-1b")->arch;
        });
        FrameworkGroup *group = frameworkGroup(w);
        const std::uint64_t eager = w.model()->estimate().peak.allocatedBytes;
        group->offloadActivations()->setChecked(true);
        QVERIFY(w.model()->scenario().train.offloadActivations);
        QVERIFY(w.model()->estimate().hostBytes > 0);
        QVERIFY(w.model()->estimate().peak.allocatedBytes < eager);
        group->offloadActivations()->setChecked(false);
        group->compile()->setChecked(true);
        QVERIFY(w.model()->scenario().train.compile);
        QVERIFY(w.model()->estimate().peak.allocatedBytes < eager);
    }

    void implementationDetailsChangeTheKnobs()
    {
        MainWindow w;
        auto *details = w.controls()->findChild<ImplementationDetailsGroup *>();
        QVERIFY(details);
        choose(details->loss(), int(Loss::Fused));
        QCOMPARE(w.model()->scenario().kernels.loss, Loss::Fused);
        choose(details->profile(), int(Profile::Litgpt));
        QCOMPARE(w.model()->scenario().kernels.profile, Profile::Litgpt);
    }

    void importTrainingConfigIsOneUndoStep()
    {
        MainWindow w;
        const int steps = w.model()->undoStack()->count();
        QVERIFY(w.document()->importTrainConfig({kConfigs + QStringLiteral("litgpt_llama-2-7b_lora.yaml")}));
        const Scenario &s = w.model()->scenario();
        QCOMPARE(s.framework.name, Framework::Litgpt);
        QCOMPARE(s.model.preset, std::string("llama-2-7b")); // the config's checkpoint_dir
        QCOMPARE(s.train.lora.rank, 32);
        QCOMPARE(s.kernels.loss, Loss::ChunkedNoUpcast);     // LitGPT's preset filled it in
        QCOMPARE(w.model()->undoStack()->count(), steps + 1);
    }

    void dropImportsTrainingConfigsTogether()
    {
        MainWindow w;
        w.show();
        QVERIFY(isTrainConfigFile(kConfigs + QStringLiteral("peft_adapter_config_llama-3.2-3B-rank32.json")));
        QVERIFY(!isTrainConfigFile(QStringLiteral(HEADROOM_SOURCE_DIR "/tests/data/configs/llama-3.2-1b.json")));
        QMimeData mime;
        mime.setUrls({QUrl::fromLocalFile(kConfigs + QStringLiteral("transformers_TrainingArguments_qlora_COMPOSED.json")),
                      QUrl::fromLocalFile(kConfigs + QStringLiteral("peft_adapter_config_llama-3.2-3B-rank32.json")),
                      QUrl::fromLocalFile(kConfigs + QStringLiteral("bitsandbytes_qlora_COMPOSED.json"))});
        QDragEnterEvent enter(QPoint(10, 10), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
        QCoreApplication::sendEvent(&w, &enter);
        QVERIFY(enter.isAccepted());
        QDropEvent drop(QPointF(10, 10), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
        QCoreApplication::sendEvent(&w, &drop);
        const Scenario &s = w.model()->scenario();
        QCOMPARE(s.framework.name, Framework::HfTransformers);
        QCOMPARE(s.train.method, Method::Qlora);
        QCOMPARE(s.train.lora.rank, 32);
        QVERIFY(w.document()->filePath().isEmpty());
    }

    void malformedConfigIsReportedNamingTheKey()
    {
        MainWindow w;
        QStringList messages;
        w.document()->setMessageHandler([&messages](const QString &text) { messages << text; });
        const Scenario before = w.model()->scenario();
        QTemporaryFile file(QDir::tempPath() + QStringLiteral("/bad-XXXXXX.yaml"));
        QVERIFY(file.open());
        file.write("model:\n  _component_: torchtune.models.llama3_1.llama3_1_8b\nbatch_size: many\n");
        file.close();
        QVERIFY(!w.document()->importTrainConfig({file.fileName()}));
        QCOMPARE(messages.size(), 1);
        QVERIFY2(messages.front().contains(QLatin1String("batch_size")), qPrintable(messages.front()));
        QCOMPARE(w.model()->scenario(), before);
    }
};

QTEST_MAIN(TestFrameworkUi)
#include "tst_frameworkui.moc"
