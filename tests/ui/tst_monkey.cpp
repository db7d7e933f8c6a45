// SPDX-License-Identifier: GPL-3.0-or-later
// A monkey in the window: seeded random user actions offscreen on whatever sliders, fields,
// combos, buttons and actions the window has (found generically, so the test survives changes
// to the layout), files from the corpus (good and hostile), exports, lessons, the advisor and
// resizes, random lesson steps, model and training-config imports (copies of the test data).
// After every action, what the window shows (the status bar's peak, the chart's current column,
// the breakdown table) must be a fresh estimate of the scenario it holds; every 20 actions the
// window's file is saved and must reopen, in the window and on the command line, to the same
// scenario and the same peak (issue 22: never save what cannot be opened).
// HEADROOM_MONKEY_SEED and HEADROOM_MONKEY_ACTIONS choose the run (default: seed 1, 500
// actions; ctest's tst_monkey_long runs 10,000).
#include "chart/budgetchart.h"
#include "chart/consumerstyle.h"
#include "classroom/advisorview.h"
#include "classroom/lessoncontroller.h"
#include "classroom/lessonplayer.h"
#include "document/documentcontroller.h"
#include "document/documentio.h"
#include "displaytext.h"
#include "document/scenariomodel.h"
#include "estimate/estimate.h"
#include "lesson/lesson.h"
#include "processutil.h"
#include "scenario/scenariojson.h"
#include "uitestutil.h"
#include "window/breakdownview.h"
#include "window/mainwindow.h"

#include <QAbstractBarSeries>
#include <QAbstractButton>
#include <QAbstractSlider>
#include <QAction>
#include <QApplication>
#include <QBarSet>
#include <QChart>
#include <QChartView>
#include <QComboBox>
#include <QDialog>
#include <QDir>
#include <QFileInfo>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QRandomGenerator>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTimer>
#include <QUndoStack>
#include <QtTest>
#include <nlohmann/json.hpp>
#include <sys/stat.h>

using namespace headroom;

namespace {

/// Text a user might type into any field: numbers in and out of range, words, hostile text.
const char *const kTypedText[] = {
    "0", "1", "2", "7", "16", "-1", "3.5", "80", "1024", "65536", "1e400", "nan", "inf", "-0",
    "99999999999999999999", "1,5", "abc", "", " ", "\x1b[31m", "\u202Ex" /* right-to-left override */, "4096",
    "0.05", "10", "24 GB", "80GiB", "1e9", "12e9 B", "40000000000", "llama", "\xc2\xb5",
};

/// What the window shows must be a fresh estimate of the scenario it holds.
QString mismatch(const MainWindow &window)
{
    const ScenarioModel &model = *window.model();
    const Unit unit = model.unit();
    Estimate fresh;
    QString error;
    try {
        fresh = estimate(model.scenario());
        // A run past a model's learned positions cannot start: the window says so instead.
        if (const auto limit = positionLimit(model.scenario()); limit && limit->error)
            error = positionLimitText(model.scenario(), *limit);
    } catch (const std::exception &problem) {
        error = QString::fromStdString(problem.what());
    }
    if (error != model.estimateError())
        return QStringLiteral("the model's error \"%1\" is not the estimator's \"%2\"").arg(model.estimateError(), error);
    const QString status = window.statusText()->text();
    if (!error.isEmpty())
        return status.contains(error) ? QString() : QStringLiteral("status \"%1\" lacks the error").arg(status);
    // The status bar's peak.
    const QString peak = bytesText(fresh.peak.deviceBytes, unit);
    if (!status.contains(peak))
        return QStringLiteral("status \"%1\" does not show the peak %2").arg(status, peak);
    // The chart, read as a user reads it: in the scale its axis names (GiB, or TiB once the
    // largest size on it, a 64 TiB custom line included, needs 10,000 GiB), the bar of the GPU:
    // the current scenario's column in the bars view (with llama.cpp on several devices, one
    // bar per device: the tightest one's is the peak), the peak phase's in the phases view, the
    // busiest rank's in the ranks view. The host bar (CPU RAM per GPU) beside them is no GPU's.
    const ByteScale scale = window.chart()->layout().scale;
    if (scale.unit != unit)
        return QStringLiteral("the chart's axis is not in the window's unit");
    std::vector<double> totals;
    for (QAbstractSeries *series : window.chartView()->chart()->series()) {
        auto *bars = qobject_cast<QAbstractBarSeries *>(series);
        if (!bars)
            continue;
        for (const QBarSet *set : bars->barSets()) {
            totals.resize(std::max(totals.size(), std::size_t(set->count())));
            for (int column = 0; column < set->count(); ++column)
                totals[std::size_t(column)] += set->at(column);
        }
    }
    const bool devices = fresh.serving && fresh.serving->devices.size() > 1 && model.pins().empty();
    const std::size_t gpuColumns = model.view() == ChartView::Phases ? fresh.phases.size()
                                   : model.view() == ChartView::Ranks ? std::max<std::size_t>(1, fresh.ranks.size())
                                   : devices                          ? fresh.serving->devices.size()
                                                                      : 1;
    const double expected = toScale(fresh.peak.deviceBytes, scale);
    const auto near = [expected](double value) { return std::abs(value - expected) <= 1e-6 * std::max(1.0, expected); };
    double shown = 0;
    bool matched = false;
    for (std::size_t column = 0; column < std::min(gpuColumns, totals.size()); ++column) {
        shown = std::max(shown, totals[column]);
        matched = matched || near(totals[column]);
    }
    if (devices ? !matched : !near(shown))
        return QStringLiteral("the chart shows %1 %2, the estimate is %3 %2")
            .arg(shown, 0, 'g', 12)
            .arg(QString::fromStdString(scaleName(scale)))
            .arg(expected, 0, 'g', 12);
    // The breakdown: one row per consumer with its size; the shares add up to 100%.
    const QTableWidget *table = window.breakdown()->table();
    if (table->rowCount() != int(fresh.consumers.size()))
        return QStringLiteral("the table has %1 rows for %2 consumers").arg(table->rowCount()).arg(fresh.consumers.size());
    // Its size column is in one scale, the peak's (17.67 GB weights read "0.0177 TB" beside a
    // peak of 10,000 GB or more: no TB beside GB).
    const ByteScale sizes = scaleFor(fresh.peak.deviceBytes, unit);
    double shares = 0;
    for (int row = 0; row < table->rowCount(); ++row) {
        const Consumer &consumer = fresh.consumers[std::size_t(row)];
        const QString size = table->item(row, 1) ? table->item(row, 1)->text() : QString();
        if (size != bytesText(consumer.bytes, sizes))
            return QStringLiteral("row %1 shows %2, the estimate %3").arg(row).arg(size, bytesText(consumer.bytes, sizes));
        shares += table->item(row, 2) ? table->item(row, 2)->text().chopped(1).toDouble() : 0;
    }
    if (fresh.peak.deviceBytes > 0 && std::abs(shares - 100) > 0.05 * table->rowCount() + 0.01)
        return QStringLiteral("the shares add up to %1%").arg(shares);
    return {};
}

/// Saves the window's document to `path` and reopens it as the window does and as the command
/// line does; says what differs (empty when both give the same scenario and the same peak).
/// A parallel layout the window lets the user pass through while its fields change (tensor 16
/// on 1 GPU) is saved as it is and must reopen to the same refusal, in the window and on the
/// command line (exit 2 with the same words).
QString reopenProblem(const MainWindow &window, const QString &path)
{
    const QString written = writeDocumentFile(path, documentOf(*window.model()));
    if (!written.isEmpty())
        return QStringLiteral("save failed: ") + written;
    ScenarioDocument reopened;
    try {
        reopened = readDocumentFile(path);
    } catch (const std::exception &problem) {
        return QStringLiteral("the window cannot reopen its own file: %1 (its parallel section %2)")
            .arg(QString::fromUtf8(problem.what()),
                 QString::fromStdString(scenarioToJson(window.model()->scenario()).value("parallel", nlohmann::json()).dump()));
    }
    const Scenario &saved = window.model()->scenario();
    if (scenarioToJson(reopened.current) != scenarioToJson(saved)) {
        const nlohmann::json patch = nlohmann::json::diff(scenarioToJson(saved), scenarioToJson(reopened.current));
        // With a framework chosen, a key the file left out used to come back filled with the
        // framework's behaviour (precision.unquantized): fixed, the writer says "compute".
        return QStringLiteral("reopened differs from saved by %1").arg(QString::fromStdString(patch.dump()));
    }
    const QString refused = window.model()->estimateError();
    if (refused.startsWith(QLatin1String("parallel.")) && reopened.pins.empty()) {
        const test::Run run = test::runHeadroom({QStringLiteral("estimate"), path});
        if (run.exitCode != 2 || !run.err.contains(refused))
            return QStringLiteral("the command line does not refuse the layout as the window does (exit %1): %2")
                .arg(run.exitCode).arg(run.err.trimmed());
        return {};
    }
    if (!refused.isEmpty() || !reopened.pins.empty())
        return {}; // a refused scenario (or a comparison): the window says so; nothing to compare
    const test::Run run = test::runHeadroom({QStringLiteral("estimate"), path, QStringLiteral("--format"), QStringLiteral("json")});
    if (run.exitCode != 0)
        return QStringLiteral("the command line cannot reopen the file (exit %1): %2").arg(run.exitCode).arg(run.err.trimmed());
    const auto peak = nlohmann::json::parse(run.out.toStdString()).at("peak").at("device_bytes").get<std::uint64_t>();
    if (peak != window.model()->estimate().peak.deviceBytes && qEnvironmentVariableIsSet("HEADROOM_MONKEY_KEEP"))
        QFile::copy(path, qEnvironmentVariable("HEADROOM_MONKEY_KEEP")); // to look at the file by hand
    if (peak != window.model()->estimate().peak.deviceBytes)
        return QStringLiteral("the command line's peak %1 is not the window's %2").arg(peak).arg(window.model()->estimate().peak.deviceBytes);
    return {};
}

/// Visible, enabled widgets of a type anywhere in the window (its dialogs and views included).
template <typename T>
QList<T *> usable(const QWidget &window)
{
    QList<T *> out;
    for (T *widget : window.findChildren<T *>())
        if (widget->isVisible() && widget->isEnabled())
            out << widget;
    return out;
}

} // namespace

class TestMonkey : public QObject
{
    Q_OBJECT
private:
    QTemporaryDir m_dir;
    QStringList m_corpus;
    QStringList m_modelConfigs; ///< copies of tests/data/configs
    QStringList m_trainConfigs; ///< copies of examples/train-configs
    QTimer m_closer;
    QStringList m_reports;

    void buildCorpus()
    {
        const QDir source(QStringLiteral(HEADROOM_SOURCE_DIR));
        for (const QString &folder : {QStringLiteral("examples"), QStringLiteral("resources/lessons"),
                                      QStringLiteral("tests/data/configs"), QStringLiteral("tests/data/measured"),
                                      QStringLiteral("fuzz/seeds/document"), QStringLiteral("fuzz/seeds/safetensors"),
                                      QStringLiteral("fuzz/seeds/index")}) {
            // The monkey saves over what it opened: it opens copies (in the same folder layout, so
            // relative references still resolve), never the project's own files.
            const QDir dir(source.filePath(folder));
            const QString copies = m_dir.filePath(QStringLiteral("source/") + folder);
            QDir().mkpath(copies);
            for (const QString &name : dir.entryList(QDir::Files, QDir::Name)) {
                const QString copy = copies + QLatin1Char('/') + name;
                if (QFile::copy(dir.filePath(name), copy)) {
                    m_corpus << copy;
                    if (folder == QLatin1String("tests/data/configs") && name.endsWith(QLatin1String(".json")))
                        m_modelConfigs << copy;
                }
            }
        }
        const QDir trainConfigs(source.filePath(QStringLiteral("examples/train-configs")));
        const QString trainCopies = m_dir.filePath(QStringLiteral("source/examples/train-configs"));
        QDir().mkpath(trainCopies);
        for (const QString &name : trainConfigs.entryList({QStringLiteral("*.yaml"), QStringLiteral("*.yml"),
                                                           QStringLiteral("*.json")}, QDir::Files, QDir::Name))
            if (QFile::copy(trainConfigs.filePath(name), trainCopies + QLatin1Char('/') + name) ||
                QFileInfo::exists(trainCopies + QLatin1Char('/') + name))
                m_trainConfigs << trainCopies + QLatin1Char('/') + name;
        // Hostile files: deep, duplicated, huge, a FIFO, a device, a folder.
        const auto write = [this](const char *name, const QByteArray &content) {
            QFile file(m_dir.filePath(QString::fromLatin1(name)));
            if (file.open(QIODevice::WriteOnly))
                file.write(content);
            m_corpus << file.fileName();
        };
        write("deep.json", "{\"format\":\"headroom-scenario\",\"version\":1,\"name\":" +
                               QByteArray(20000, '[') + QByteArray(20000, ']') + "}");
        write("dup.json", R"({"format":"headroom-scenario","version":1,"version":1})");
        write("big.json", QByteArray(5 * 1024 * 1024, ' '));
        write("overflow.json", R"({"format":"headroom-scenario","version":1,"train":{"micro_batch":1048576,"seq_len":16777216},"kernels":{"attention":"eager"}})");
        const QString fifo = m_dir.filePath(QStringLiteral("fifo.json"));
        if (::mkfifo(QFile::encodeName(fifo).constData(), 0600) == 0)
            m_corpus << fifo;
        m_corpus << QStringLiteral("/dev/zero") << m_dir.path();
    }

private slots:
    void initTestCase()
    {
        test::isolateSettings("tst_monkey");
        QVERIFY(m_dir.isValid());
        buildCorpus();
        // Modal dialogs (file dialogs, message boxes, the export and GPU dialogs) and popup menus
        // opened by an action are closed as soon as they run their own event loop.
        m_closer.setInterval(5);
        connect(&m_closer, &QTimer::timeout, this, [] {
            if (QWidget *popup = QApplication::activePopupWidget())
                popup->close();
            if (QWidget *modal = QApplication::activeModalWidget()) {
                if (auto *dialog = qobject_cast<QDialog *>(modal))
                    dialog->reject();
                else
                    modal->close();
            }
        });
        m_closer.start();
    }

    void randomActions()
    {
        const quint32 seed = qEnvironmentVariableIsSet("HEADROOM_MONKEY_SEED")
                                 ? quint32(qEnvironmentVariableIntValue("HEADROOM_MONKEY_SEED")) : 1;
        const int actions = qEnvironmentVariableIsSet("HEADROOM_MONKEY_ACTIONS")
                                ? qEnvironmentVariableIntValue("HEADROOM_MONKEY_ACTIONS") : 500;
        QRandomGenerator random(seed);
        MainWindow window;
        DocumentController &document = *window.document();
        document.setMessageHandler([this](const QString &text) { m_reports << text; });
        document.setSaveQuestion([] { return QMessageBox::Discard; });
        document.setMissingFieldsPrompt([](const QString &, const std::vector<std::string> &, nlohmann::json &) { return false; });
        document.setRestoreQuestion([](const QString &) { return QMessageBox::No; });
        window.lessons()->setMessageHandler([this](const QString &text) { m_reports << text; });
        QVERIFY(test::showActive(window));
        QVERIFY2(mismatch(window).isEmpty(), qPrintable(mismatch(window)));

        const QStringList lessonIds = [] {
            QStringList ids;
            for (const BuiltinLesson &lesson : builtinLessons())
                ids << QString::fromUtf8(lesson.id.data(), qsizetype(lesson.id.size()));
            return ids;
        }();
        const auto pick = [&random](const auto &list) { return list.at(qsizetype(random.bounded(quint32(list.size())))); };
        QHash<QString, int> counts;
        QString last;
        for (int i = 0; i < actions; ++i) {
            const quint32 kind = random.bounded(100u);
            if (kind < 18) {
                const auto sliders = usable<QAbstractSlider>(window);
                if (sliders.isEmpty())
                    continue;
                QAbstractSlider *slider = pick(sliders);
                if (random.bounded(2u))
                    slider->setValue(slider->minimum() + int(random.bounded(quint32(slider->maximum() - slider->minimum()) + 1)));
                else
                    slider->triggerAction(random.bounded(2u) ? QAbstractSlider::SliderPageStepAdd : QAbstractSlider::SliderSingleStepSub);
                last = QStringLiteral("slider ") + slider->objectName() + slider->accessibleName();
            } else if (kind < 32) {
                const auto fields = usable<QLineEdit>(window);
                if (fields.isEmpty())
                    continue;
                QLineEdit *field = pick(fields);
                const QString text = QString::fromUtf8(kTypedText[random.bounded(quint32(std::size(kTypedText)))]);
                field->setFocus();
                field->selectAll();
                bool typable = true;
                for (const QChar c : text)
                    typable = typable && c.unicode() >= 0x20 && c.unicode() < 0x7F;
                if (typable)
                    QTest::keyClicks(field, text);
                else
                    field->insert(text); // what a paste does: QTest types printable ASCII only
                QTest::keyClick(field, Qt::Key_Return);
                emit field->editingFinished();
                last = QStringLiteral("typed \"%1\" into %2").arg(text, field->parentWidget() ? field->parentWidget()->accessibleName() : QString());
            } else if (kind < 44) {
                const auto combos = usable<QComboBox>(window);
                if (combos.isEmpty())
                    continue;
                QComboBox *combo = pick(combos);
                if (combo->count() == 0)
                    continue;
                const int index = int(random.bounded(quint32(combo->count())));
                combo->setCurrentIndex(index);
                emit combo->activated(index);
                last = QStringLiteral("combo %1 -> %2").arg(combo->accessibleName(), combo->itemText(index));
            } else if (kind < 56) {
                const auto buttons = usable<QAbstractButton>(window);
                if (buttons.isEmpty())
                    continue;
                QAbstractButton *button = pick(buttons);
                last = QStringLiteral("button ") + button->text() + button->accessibleName();
                button->click();
            } else if (kind < 68) {
                QList<QAction *> actionsFound;
                for (QAction *action : window.findChildren<QAction *>())
                    if (action->isEnabled() && !action->isSeparator() && !action->menu() &&
                        action->shortcut() != QKeySequence(QKeySequence::Quit) &&
                        !action->text().contains(QLatin1String("Quit")))
                        actionsFound << action;
                if (actionsFound.isEmpty())
                    continue;
                QAction *action = pick(actionsFound);
                last = QStringLiteral("action ") + action->text();
                action->trigger();
            } else if (kind < 74) {
                QUndoStack *undo = window.model()->undoStack();
                random.bounded(2u) ? undo->undo() : undo->redo();
                last = QStringLiteral("undo/redo");
            } else if (kind < 78) {
                random.bounded(2u) ? (void)window.model()->pinCurrent() : window.model()->removePin(int(random.bounded(9u)));
                last = QStringLiteral("pin/unpin");
            } else if (kind < 83) {
                const QString path = pick(m_corpus);
                last = QStringLiteral("open ") + path;
                const quint32 how = random.bounded(5u);
                if (how == 0) {
                    document.openFile(path);
                } else if (how == 1) {
                    window.lessons()->openFile(path);
                } else if (how == 2) {
                    document.importModel(path);
                } else if (how == 3) {
                    const QString config = pick(m_modelConfigs); // a real config.json
                    last = QStringLiteral("import model ") + config;
                    document.importModel(config);
                } else {
                    // One training config, or two (a TrainingArguments file with its PEFT config).
                    QStringList files{pick(m_trainConfigs)};
                    if (random.bounded(3u) == 0)
                        files << pick(m_trainConfigs);
                    last = QStringLiteral("import training ") + files.join(QLatin1String(" + "));
                    document.importTrainConfig(files);
                }
            } else if (kind < 87) {
                const QString id = pick(lessonIds);
                window.lessons()->openBuiltin(id);
                if (random.bounded(2u)) {
                    // A random step opened directly, as the step list does.
                    const int steps = window.lessons()->player()->stepCount();
                    if (steps > 0)
                        window.lessons()->player()->goTo(int(random.bounded(quint32(steps))));
                } else {
                    for (quint32 step = random.bounded(4u); step > 0; --step)
                        window.lessons()->player()->next();
                }
                last = QStringLiteral("lesson ") + id + QStringLiteral(" step %1").arg(window.lessons()->player()->stepIndex());
            } else if (kind < 90) {
                AdvisorView *advisor = window.advisor();
                advisor->show();
                const int steps = int(advisor->advice().steps.size());
                if (steps > 0)
                    advisor->applyStep(int(random.bounded(quint32(steps))));
                last = QStringLiteral("advisor apply");
            } else if (kind < 94) {
                static const char *const formats[] = {"png", "svg", "pdf", "csv", "json"};
                const QString path = m_dir.filePath(
                    QStringLiteral("export-%1.%2").arg(i).arg(QLatin1String(formats[random.bounded(5u)])));
                ChartExportOptions options;
                options.size = QSize(320, 200);
                options.scale = 1;
                document.exportTo(path, options);
                QFile::remove(path);
                last = QStringLiteral("export ") + path;
            } else if (kind < 97) {
                window.resize(200 + int(random.bounded(1800u)), 150 + int(random.bounded(1100u)));
                last = QStringLiteral("resize");
            } else {
                window.model()->setDark(!window.model()->dark());
                last = QStringLiteral("theme");
            }
            counts[last.section(QLatin1Char(' '), 0, 0)]++;
            QCoreApplication::processEvents();
            const QString problem = mismatch(window);
            QVERIFY2(problem.isEmpty(),
                     qPrintable(QStringLiteral("seed %1, action %2 (%3): %4").arg(seed).arg(i).arg(last, problem)));
            if (i % 20 == 19) {
                // Whatever state the monkey reached saves a file that reopens the same.
                const QString reopen = reopenProblem(
                    window, m_dir.filePath(QStringLiteral("reopen-%1.headroom.json").arg(i)));
                QVERIFY2(reopen.isEmpty(),
                         qPrintable(QStringLiteral("seed %1, after action %2 (%3): %4").arg(seed).arg(i).arg(last, reopen)));
                counts[window.model()->estimateError().startsWith(QLatin1String("parallel."))
                           ? QStringLiteral("reopen-refused-layout")
                           : QStringLiteral("reopened")]++;
            }
        }
        qInfo("monkey: seed %u, %d actions; reports %lld; by kind: %s", seed, actions, qlonglong(m_reports.size()),
              qPrintable([&] {
                  QStringList parts;
                  for (auto it = counts.cbegin(); it != counts.cend(); ++it)
                      parts << QStringLiteral("%1 %2").arg(it.key()).arg(it.value());
                  parts.sort();
                  return parts.join(QLatin1String(", "));
              }()));
        window.document()->setSaveQuestion([] { return QMessageBox::Discard; });
        window.close();
    }
};

QTEST_MAIN(TestMonkey)
#include "tst_monkey.moc"
