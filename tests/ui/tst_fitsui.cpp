// SPDX-License-Identifier: GPL-3.0-or-later
// View > What fits my machine (issue 25) offscreen: one row per catalog model x format, the
// scenario's GPU chosen, sorting by a header, the model name filter and "fits only", and Enter
// on a row opening it as the scenario whose estimate is the row's.
#include "classroom/fitsview.h"
#include "document/scenariomodel.h"
#include "estimate/estimate.h"
#include "uitestutil.h"
#include "window/mainwindow.h"

#include <QAction>
#include <QCheckBox>
#include <QComboBox>
#include <QHeaderView>
#include <QLineEdit>
#include <QMenuBar>
#include <QSortFilterProxyModel>
#include <QSpinBox>
#include <QStandardItemModel>
#include <QTableView>
#include <QUndoStack>
#include <QtTest>

using namespace headroom;

namespace {

std::size_t expectedRows(Engine engine, const QString &filter = {})
{
    std::size_t n = 0;
    for (const ModelPreset &preset : builtinCatalog().models)
        if (filter.isEmpty() || QString::fromStdString(preset.name).contains(filter, Qt::CaseInsensitive) ||
            QString::fromStdString(preset.id).contains(filter, Qt::CaseInsensitive))
            n += fitsFormats(engine, preset).size();
    return n;
}

} // namespace

class TestFitsUi : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase() { test::isolateSettings("tst_fitsui"); }

    void rowsSortFilterAndOpen()
    {
        ScenarioModel model;
        model.apply(QStringLiteral("gpu"), [](Scenario &s) { s.gpus = {"rtx-4090"}; });
        FitsView view(&model);
        QVERIFY(test::showActive(view));
        // The scenario's GPU first; one row per model x llama.cpp file type.
        QCOMPARE(view.gpuBox()->currentData().toString(), QStringLiteral("rtx-4090"));
        QCOMPARE(std::size_t(view.source()->rowCount()), expectedRows(Engine::LlamaCpp));
        QCOMPARE(std::size_t(view.proxy()->rowCount()), expectedRows(Engine::LlamaCpp));
        QCOMPARE(view.rows().size(), expectedRows(Engine::LlamaCpp));
        // HEADROOM_SCREENSHOT=file.png: the view at 1280x720, to look at.
        if (const QString shot = qEnvironmentVariable("HEADROOM_SCREENSHOT"); !shot.isEmpty()) {
            view.resize(1280, 720);
            QCoreApplication::processEvents();
            QVERIFY(view.grab().save(shot));
        }

        // A click on the Peak header sorts by the peak in bytes, ascending, again descending.
        QHeaderView *header = view.table()->horizontalHeader();
        const int x = header->sectionViewportPosition(FitsView::Peak) + header->sectionSize(FitsView::Peak) / 2;
        QTest::mouseClick(header->viewport(), Qt::LeftButton, {}, QPoint(x, header->height() / 2));
        QCOMPARE(header->sortIndicatorSection(), int(FitsView::Peak));
        auto peaks = [&] {
            std::vector<std::uint64_t> out;
            for (int r = 0; r < view.proxy()->rowCount(); ++r)
                out.push_back(view.rowAt(r)->peakBytes);
            return out;
        };
        std::vector<std::uint64_t> sorted = peaks();
        QVERIFY(std::is_sorted(sorted.begin(), sorted.end()) || std::is_sorted(sorted.rbegin(), sorted.rend()));
        const bool ascending = header->sortIndicatorOrder() == Qt::AscendingOrder;
        QTest::mouseClick(header->viewport(), Qt::LeftButton, {}, QPoint(x, header->height() / 2));
        QCOMPARE(header->sortIndicatorOrder() == Qt::AscendingOrder, !ascending);
        sorted = peaks();
        if (ascending)
            QVERIFY(std::is_sorted(sorted.rbegin(), sorted.rend()));
        else
            QVERIFY(std::is_sorted(sorted.begin(), sorted.end()));
        QVERIFY(sorted.front() != sorted.back());

        // The name filter, typed: only Mixtral's rows; "fits only" keeps those that fit.
        view.filter()->setFocus();
        QTest::keyClicks(view.filter(), QStringLiteral("mixtral"));
        QCOMPARE(std::size_t(view.proxy()->rowCount()), expectedRows(Engine::LlamaCpp, QStringLiteral("mixtral")));
        QVERIFY(view.proxy()->rowCount() > 0);
        view.fitsOnly()->click();
        std::size_t fitting = 0;
        for (const FitsRow &row : view.rows())
            fitting += row.fits && QString::fromStdString(row.model).contains(QLatin1String("mixtral")) ? 1 : 0;
        QCOMPARE(std::size_t(view.proxy()->rowCount()), fitting);
        for (int r = 0; r < view.proxy()->rowCount(); ++r)
            QVERIFY(view.rowAt(r)->fits);
        view.fitsOnly()->click();
        view.filter()->clear();
        QCOMPARE(std::size_t(view.proxy()->rowCount()), expectedRows(Engine::LlamaCpp));

        // Enter on Llama 3 8B Q4_K_M opens it: serving with llama.cpp, that file type and context.
        int target = -1;
        for (int r = 0; r < view.proxy()->rowCount(); ++r)
            if (view.rowAt(r)->model == "llama-3-8b" && view.rowAt(r)->format.name == "Q4_K_M")
                target = r;
        QVERIFY(target >= 0);
        const FitsRow row = *view.rowAt(target);
        view.table()->setFocus();
        view.table()->setCurrentIndex(view.proxy()->index(target, 0));
        QSignalSpy opened(&view, &FitsView::opened);
        QTest::keyClick(view.table(), Qt::Key_Return);
        QCOMPARE(opened.count(), 1);
        const Scenario &s = model.scenario();
        QCOMPARE(s.task, Task::Inference);
        QCOMPARE(s.model.preset, std::string("llama-3-8b"));
        QVERIFY(s.serving && s.serving->engine == Engine::LlamaCpp);
        QCOMPARE(s.serving->weightType, GgufType::Q4_K_M);
        QCOMPARE(s.serving->nCtx, 4096u);
        QCOMPARE(s.serving->nGpuLayers, row.nGpuLayers);
        QVERIFY(model.estimateError().isEmpty());
        const GpuFit &gpu = model.estimate().gpus.front();
        QCOMPARE(gpu.id, std::string("rtx-4090"));
        QCOMPARE(std::int64_t(gpu.capacityBytes) - gpu.headroomBytes, std::int64_t(row.peakBytes));
        QVERIFY(model.undoStack()->canUndo());
    }

    void vllmRowsAndTheMenu()
    {
        MainWindow window;
        QAction *action = nullptr;
        for (QAction *menu : window.menuBar()->actions())
            if (menu->menu())
                for (QAction *item : menu->menu()->actions())
                    if (item->text().contains(QLatin1String("What fits my")))
                        action = item;
        QVERIFY(action);
        QVERIFY(!action->shortcut().isEmpty());
        action->trigger();
        FitsView *view = window.fits();
        QVERIFY(view->isVisible());
        view->engineBox()->setCurrentIndex(view->engineBox()->findData(int(Engine::Vllm)));
        QCOMPARE(std::size_t(view->source()->rowCount()), expectedRows(Engine::Vllm));
        // vLLM keeps every expert on the GPU: no row needs an offload.
        for (const FitsRow &row : view->rows())
            QCOMPARE(row.nCpuMoe, 0u);
        view->contextBox()->setValue(8192);
        for (const FitsRow &row : view->rows())
            if (row.verdict.rfind("not modelled", 0) != 0)
                QVERIFY(row.context == std::min<std::uint32_t>(8192, row.maxPositions));
        view->close();
    }
};

QTEST_MAIN(TestFitsUi)
#include "tst_fitsui.moc"
