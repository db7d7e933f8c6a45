// SPDX-License-Identifier: GPL-3.0-or-later
// Finding a model as users type it: a Hub id (with its variant suffix), part of a name, any case
// and separators; and the window's preset combo choosing it on Enter.
#include "uitestutil.h"

#include "document/scenariomodel.h"
#include "scenario/modelsearch.h"
#include "window/mainwindow.h"
#include "window/shortcutsdialog.h"
#include "window/firstruncard.h"
#include "classroom/advisorview.h"
#include "classroom/frontierview.h"
#include <QDockWidget>
#include <QPushButton>

#include <QComboBox>
#include <QCompleter>
#include <QLineEdit>
#include <QMenu>
#include <QMenuBar>
#include <algorithm>
#include <functional>
#include <QSettings>
#include <QtTest>

using namespace headroom;

namespace {

/// The id of the best match, or "" when nothing matches.
QString best(const char *query)
{
    const std::vector<const ModelPreset *> found = findModels(query);
    return found.empty() ? QString() : QString::fromStdString(found.front()->id);
}

QComboBox *presetCombo(MainWindow &w)
{
    for (QComboBox *combo : w.findChildren<QComboBox *>())
        if (combo->accessibleName() == QLatin1String("Model preset"))
            return combo;
    return nullptr;
}

} // namespace

class TestModelSearch : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase() { headroom::test::isolateSettings("tst_modelsearch"); }

    void findsByHubIdOrName_data()
    {
        QTest::addColumn<QString>("query");
        QTest::addColumn<QString>("id");
        // The catalog (resources/models.json): llama-3.1-8b is "Llama 3.1 8B",
        // hf_id meta-llama/Llama-3.1-8B; qwen3-30b-a3b is "Qwen3 30B-A3B (MoE)", Qwen/Qwen3-30B-A3B.
        QTest::newRow("hub-id") << "meta-llama/Llama-3.1-8B" << "llama-3.1-8b";
        // The instruct checkpoint has the base model's architecture and memory.
        QTest::newRow("hub-id-instruct") << "meta-llama/Llama-3.1-8B-Instruct" << "llama-3.1-8b";
        QTest::newRow("name-words") << "qwen3 30b" << "qwen3-30b-a3b";
        QTest::newRow("hub-id-lower") << "qwen/qwen3-30b-a3b" << "qwen3-30b-a3b";
        QTest::newRow("name") << "Llama 3.1 8B" << "llama-3.1-8b";
        QTest::newRow("preset-id") << "llama-3.1-8b" << "llama-3.1-8b";
        QTest::newRow("nothing") << "zzz-no-such-model" << "";
        QTest::newRow("empty") << " / - " << "";
        // A variant word is forgiven only at the end, after a model was named.
        QTest::newRow("variant-not-a-model") << "llama zzz instruct" << "";
    }
    void findsByHubIdOrName()
    {
        QFETCH(QString, query);
        QFETCH(QString, id);
        QCOMPARE(best(query.toUtf8().constData()), id);
    }

    // Every word must match: "qwen3 30b" is not Qwen3 32B; every preset is found by its own Hub id.
    void everyPresetByItsHubId()
    {
        for (const std::string &query : {std::string("qwen3 30b")})
            for (const ModelPreset *preset : findModels(query))
                QVERIFY2(QString::fromStdString(preset->name).contains(QLatin1String("30B")), preset->name.c_str());
        for (const ModelPreset &preset : builtinCatalog().models) {
            if (preset.hfId.empty())
                continue;
            const std::vector<const ModelPreset *> found = findModels(preset.hfId);
            QVERIFY2(!found.empty(), preset.hfId.c_str());
            // Two presets may share a Hub id (the same checkpoint, other settings): the first is one of them.
            QCOMPARE(QString::fromStdString(found.front()->hfId), QString::fromStdString(preset.hfId));
        }
    }

    // A first start shows the three questions; each opens the view that answers it, and the card
    // does not come back.
    void firstRunCardLeadsToTheAnswers()
    {
        QSettings().clear();
        {
            MainWindow w;
            w.show();
            auto *card = w.findChild<FirstRunCard *>();
            QVERIFY(card);
            QVERIFY(card->isVisible());
            QVERIFY(!w.advisor()->isVisible());
            card->fitButton()->click();
            QVERIFY(w.advisor()->isVisible());
            QVERIFY(!card->isVisible());
        }
        {
            MainWindow w; // not a first start any more
            QVERIFY(!w.findChild<FirstRunCard *>());
        }
        QSettings().clear();
        MainWindow w;
        w.show();
        auto *card = w.findChild<FirstRunCard *>();
        QVERIFY(card);
        card->usersButton()->click();
        QVERIFY(w.frontier()->isVisible());
        QSettings().clear();
        MainWindow again;
        again.show();
        again.findChild<FirstRunCard *>()->gpusButton()->click();
        auto *dock = again.findChild<QDockWidget *>(QStringLiteral("solveDock"));
        QVERIFY(dock);
        QVERIFY(dock->isVisible());
        QSettings().clear();
    }

    // Help > Keyboard shortcuts lists the menus' own shortcuts and presenter mode's keys.
    void keyboardShortcutsList()
    {
        MainWindow w;
        const QVector<ShortcutRow> rows = shortcutRows(w.menuBar());
        const auto has = [&](const QString &where, const QString &what, const QKeySequence &key) {
            const QString keys = key.toString(QKeySequence::NativeText);
            return std::any_of(rows.begin(), rows.end(), [&](const ShortcutRow &row) {
                return row.where.startsWith(where) && row.what == what && row.keys.split(QStringLiteral(", ")).contains(keys);
            });
        };
        QVERIFY(has(QStringLiteral("Scenario"), QStringLiteral("Pin for comparison"), Qt::CTRL | Qt::Key_P));
        QVERIFY(has(QStringLiteral("Lessons"), QStringLiteral("Next step"), Qt::ALT | Qt::Key_Right));
        QVERIFY(has(QStringLiteral("Presenter mode"), QStringLiteral("Pin for comparison"), Qt::CTRL | Qt::Key_P));
        QVERIFY(has(QStringLiteral("Presenter mode"), QStringLiteral("Leave presenter mode"), Qt::Key_Escape));
        // Every menu action with a shortcut is listed once, with its keys.
        int withShortcut = 0;
        std::function<void(const QMenu *)> count = [&](const QMenu *menu) {
            for (const QAction *action : menu->actions())
                action->menu() ? count(action->menu()) : void(withShortcut += !action->shortcuts().isEmpty());
        };
        for (const QAction *action : w.menuBar()->actions())
            if (action->menu())
                count(action->menu());
        QCOMPARE(int(std::count_if(rows.begin(), rows.end(), [](const ShortcutRow &row) { return row.where != QLatin1String("Presenter mode"); })),
                 withShortcut);
        // The menu item is there.
        bool listed = false;
        for (const QAction *action : w.menuBar()->actions())
            if (action->menu() && action->text().remove(QLatin1Char('&')) == QLatin1String("Help"))
                for (const QAction *item : action->menu()->actions())
                    listed |= item->text().remove(QLatin1Char('&')) == QLatin1String("Keyboard shortcuts");
        QVERIFY(listed);
    }

    // In the window: type into the preset combo and press Enter; the model changes as if chosen.
    void comboChoosesOnEnter()
    {
        QSettings().clear();
        MainWindow w;
        w.show();
        QComboBox *combo = presetCombo(w);
        QVERIFY(combo);
        QVERIFY(combo->isEditable());
        combo->lineEdit()->selectAll();
        QTest::keyClicks(combo->lineEdit(), QStringLiteral("qwen3 30b"));
        QTest::keyClick(combo->lineEdit(), Qt::Key_Return);
        QCOMPARE(QString::fromStdString(w.model()->scenario().model.preset), QStringLiteral("qwen3-30b-a3b"));
        QCOMPARE(combo->currentText(), QString::fromStdString(builtinCatalog().findModel("qwen3-30b-a3b")->name));
        // Nothing matches: the model stays, its name comes back.
        combo->lineEdit()->selectAll();
        QTest::keyClicks(combo->lineEdit(), QStringLiteral("no such model"));
        QTest::keyClick(combo->lineEdit(), Qt::Key_Return);
        QCOMPARE(QString::fromStdString(w.model()->scenario().model.preset), QStringLiteral("qwen3-30b-a3b"));
        QCOMPARE(combo->currentText(), QString::fromStdString(builtinCatalog().findModel("qwen3-30b-a3b")->name));
        // A popup entry ("Name · org/repo") chosen is that model.
        emit combo->completer()->activated(QStringLiteral("Llama 3.1 8B \u00b7 meta-llama/Llama-3.1-8B"));
        QCOMPARE(QString::fromStdString(w.model()->scenario().model.preset), QStringLiteral("llama-3.1-8b"));
        combo->lineEdit()->selectAll();
        QTest::keyClicks(combo->lineEdit(), QStringLiteral("no such model"));
        QTest::keyClick(combo->lineEdit(), Qt::Key_Return);
        QCOMPARE(QString::fromStdString(w.model()->scenario().model.preset), QStringLiteral("llama-3.1-8b"));
        QVERIFY2(combo->lineEdit()->toolTip().contains(QLatin1String("no such model")), qPrintable(combo->lineEdit()->toolTip() + QLatin1String("|") + combo->lineEdit()->text()));
    }
};

QTEST_MAIN(TestModelSearch)
#include "tst_modelsearch.moc"
