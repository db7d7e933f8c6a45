// SPDX-License-Identifier: GPL-3.0-or-later
// Every answer is checkable (issue 22): over randomly generated scenarios (every task, every
// serving engine, parallel layouts, models with learned positions), each solver answer is
// confirmed by the estimator (the value fits the GPU and the next one does not; min-gpus: the
// count fits and the next smaller one does not), a scenario the estimator refuses is answered
// "cannot answer: <reason>", and no answer text says "fits" with a peak above the capacity.
// HEADROOM_SOLVEPROPS_SEED and HEADROOM_SOLVEPROPS_COUNT choose the run (default 22 and 60).
#include "testutil.h"

#include "estimate/verdict.h"
#include "scenario/checked.h"
#include "scenario/scenariotitle.h"
#include "solve/solver.h"
#include "solvetext.h"

#include <QRandomGenerator>

using namespace headroom;
using nlohmann::json;

namespace {

/// The facts after the title, joined.
std::string scenarioSummaryText(const Scenario &s)
{
    std::string out;
    for (const std::string &fact : scenarioFacts(s))
        out += fact + " \u00b7 ";
    return out;
}

bool budgetEngine(const Scenario &s)
{
    return s.task == Task::Inference && s.serving &&
           (s.serving->engine == Engine::Vllm || s.serving->engine == Engine::Sglang);
}

bool engine(const Scenario &s)
{
    return s.task == Task::Inference && s.serving && s.serving->engine != Engine::HfGenerate;
}

/// Whether the estimator says the scenario runs on one `gpu`: training and plain inference
/// within its capacity; an engine started, running the requests, within its own budget (its
/// free pool is not demand); never past a model's learned positions.
bool runsOn(const Scenario &scenario, const Gpu &gpu)
{
    Scenario s = scenario;
    if (engine(s)) {
        s.gpus = {gpu.id};
        s.targetGpu.clear();
    }
    try {
        if (const auto limit = positionLimit(s); limit && limit->error)
            return false;
        const Estimate e = estimate(s, Detail::BytesOnly);
        if (engine(s) && e.serving && !(e.serving->startsOk && e.serving->requestsFit))
            return false;
        if (budgetEngine(s))
            return true;
        return e.peak.deviceBytes <= gpu.capacityBytes();
    } catch (const OverflowError &) {
        return false;
    } catch (const InputError &) {
        return false;
    }
}

/// Whether the estimator refuses the scenario as it is (the window's "Cannot estimate").
std::string refusal(const Scenario &s)
{
    try {
        estimate(s, Detail::BytesOnly);
    } catch (const OverflowError &) {
        return {};
    } catch (const InputError &error) {
        return error.what();
    }
    if (const auto limit = positionLimit(s); limit && limit->error)
        return "learned positions";
    return {};
}

/// A random scenario document: model, task, engine, layout, GPUs.
json randomDocument(QRandomGenerator &random)
{
    const auto pick = [&random](const auto &list) { return list[random.bounded(quint32(std::size(list)))]; };
    static const char *const models[] = {"gpt2", "llama-3-8b", "llama-3.1-8b", "qwen3-30b-a3b", "llama-2-7b", "opt-125m"};
    static const char *const gpus[] = {"t4", "rtx-4090", "a100-80gb", "h100-80gb", "l40s", "b200"};
    static const char *const tasks[] = {"full", "lora", "qlora", "inference", "vllm", "sglang", "llama_cpp", "hf_generate"};
    json doc = {{"format", "headroom-scenario"}, {"version", 1}, {"model", {{"preset", pick(models)}}}};
    json list = json::array();
    const quint32 count = 1 + random.bounded(3u);
    for (quint32 i = 0; i < count; ++i)
        if (const char *id = pick(gpus); std::find(list.begin(), list.end(), id) == list.end())
            list.push_back(id);
    doc["gpus"] = list;
    if (random.bounded(2u))
        doc["target_gpu"] = list[random.bounded(quint32(list.size()))];
    const std::string task = pick(tasks);
    const std::uint32_t gpuCount = std::uint32_t(1) << random.bounded(3u);
    if (task == "full" || task == "lora" || task == "qlora") {
        doc["train"] = {{"method", task}, {"micro_batch", 1 + random.bounded(8u)},
                        {"seq_len", 256u << random.bounded(5u)}};
        if (task == "qlora")
            doc["precision"] = {{"weights", "nf4"}};
        if (random.bounded(2u))
            doc["train"]["gradient_checkpointing"] = "full";
        if (gpuCount > 1) {
            static const char *const strategies[] = {"ddp", "zero2", "zero3", "fsdp"};
            doc["parallel"] = {{"gpus", gpuCount}, {"strategy", pick(strategies)}};
        }
        return doc;
    }
    doc["task"] = "inference";
    if (task == "inference") {
        doc["inference"] = {{"batch", 1 + random.bounded(16u)}, {"context", 512u << random.bounded(5u)}};
        return doc;
    }
    json serving = {{"engine", task},
                    {"requests", {{"concurrency", 1 + random.bounded(32u)}, {"prompt_tokens", 256u << random.bounded(5u)},
                                  {"output_tokens", 128u << random.bounded(3u)}}}};
    if (task == "vllm" || task == "sglang") {
        serving["max_model_len"] = 8192;
        if (gpuCount > 1)
            doc["parallel"] = {{"gpus", gpuCount}, {"tensor", gpuCount}};
    }
    if (task == "vllm")
        serving["gpu_memory_utilization"] = 0.5 + 0.05 * random.bounded(10u);
    if (task == "llama_cpp")
        serving["n_ctx"] = 4096u << random.bounded(3u);
    doc["serving"] = serving;
    return doc;
}

} // namespace

class TestSolveProps : public QObject
{
    Q_OBJECT
private slots:
    void everyAnswerIsConfirmedByTheEstimator()
    {
        const quint32 seed = qEnvironmentVariableIsSet("HEADROOM_SOLVEPROPS_SEED")
                                 ? quint32(qEnvironmentVariableIntValue("HEADROOM_SOLVEPROPS_SEED")) : 22;
        const int count = qEnvironmentVariableIsSet("HEADROOM_SOLVEPROPS_COUNT")
                              ? qEnvironmentVariableIntValue("HEADROOM_SOLVEPROPS_COUNT") : 60;
        QRandomGenerator random(seed);
        int answered = 0, refused = 0, unread = 0, confirmedNext = 0, inapplicable = 0;
        for (int i = 0; i < count; ++i) {
            const json doc = randomDocument(random);
            Scenario s;
            try {
                s = parseScenario(doc.dump());
            } catch (const std::exception &) {
                ++unread; // the reader refuses it: not a scenario the window or the CLI holds
                continue;
            }
            const std::string why = refusal(s);
            for (SolveFor what : applicableSolves(s)) {
                const std::string &gpuId = s.gpus[random.bounded(quint32(s.gpus.size()))];
                const Gpu &gpu = *builtinCatalog().findGpu(gpuId);
                const QString where = QStringLiteral("#%1 %2 %3 on %4").arg(i).arg(QString::fromStdString(doc.dump()),
                                                                              QLatin1String(solveForKey(what)),
                                                                              QString::fromStdString(gpuId));
                Solution answer;
                try {
                    answer = solve(s, what, gpuId);
                } catch (const SolveError &error) {
                    const QString text = QString::fromUtf8(error.what());
                    // A refusal is shown as one ("cannot answer: <reason>"), and only where the
                    // estimator refuses the scenario; otherwise the variable does not apply (it
                    // says why, and never that anything fits).
                    QVERIFY2(text.startsWith(QLatin1String("cannot answer: ")) == !why.empty(),
                             qPrintable(where + QStringLiteral(": ") + text));
                    QVERIFY2(!text.contains(QLatin1String("fits")), qPrintable(where + QStringLiteral(": ") + text));
                    ++(why.empty() ? inapplicable : refused);
                    if (qEnvironmentVariableIsSet("HEADROOM_SOLVEPROPS_VERBOSE"))
                        qInfo("%s: %s", qPrintable(where), qPrintable(text));
                    continue;
                }
                QVERIFY2(why.empty(), qPrintable(where + QStringLiteral(": answered although refused: ") +
                                                 QString::fromStdString(why)));
                ++answered;
                const QString text = solveAnswerText(answer, Unit::GiB);
                if (answer.value == 0) {
                    QVERIFY2(text.startsWith(QLatin1String("Not even")) || text.startsWith(QLatin1String("No number")),
                             qPrintable(where + QStringLiteral(": ") + text));
                    continue;
                }
                // The answer fits: the estimator confirms it on that GPU.
                QVERIFY2(runsOn(answer.scenario, gpu), qPrintable(where + QStringLiteral(": the answer does not fit: ") + text));
                if (!budgetEngine(s))
                    QVERIFY2(answer.peakBytes && *answer.peakBytes <= gpu.capacityBytes(),
                             qPrintable(where + QStringLiteral(": 'fits' above the capacity: ") + text));
                // The next value does not (min-gpus: the next smaller count).
                if (answer.nextValue && answer.limit != "range") {
                    const Scenario next = what == SolveFor::MinGpus
                                              ? [&] {
                                                    Scenario fewer = answer.scenario;
                                                    fewer.parallel.gpus = std::uint32_t(*answer.nextValue);
                                                    if (answer.strategy == "tensor")
                                                        fewer.parallel.tensor = std::uint32_t(*answer.nextValue / (fewer.parallel.pipeline * fewer.parallel.context));
                                                    if (answer.strategy == "pipeline")
                                                        fewer.parallel.pipeline = std::uint32_t(*answer.nextValue / (fewer.parallel.tensor * fewer.parallel.context));
                                                    return fewer;
                                                }()
                                              : withSolveValue(s, what, *answer.nextValue);
                    QVERIFY2(!runsOn(next, gpu), qPrintable(where + QStringLiteral(": the next value fits too: ") + text));
                    ++confirmedNext;
                }
            }
        }
        qInfo("solver properties: seed %u, %d scenarios (%d the reader refuses): %d answers confirmed "
              "(%d next values), %d refusals, %d not applicable",
              seed, count, unread, answered, confirmedNext, refused, inapplicable);
        QVERIFY(answered > count);
        QVERIFY(confirmedNext > count / 2);
    }

    // Training-only words never reach a serving title: a vLLM scenario that still carries a
    // training run's framework, strategy and optimizer offload (as a window switched from
    // training keeps them) is titled by what it serves.
    void servingTitlesHaveNoTrainingWords()
    {
        Scenario s;
        s.model = builtinCatalog().findModel("llama-3.1-8b")->arch;
        s.framework.name = Framework::Torchtune;
        s.parallel.gpus = 2;
        s.parallel.tensor = 2;
        s.parallel.strategy = Strategy::Fsdp;
        s.parallel.offloadOptimizer = true;
        s.kernels.profile = Profile::Fused;
        const std::string trainingTitle = scenarioTitle(s) + " " + scenarioSummaryText(s);
        QVERIFY2(trainingTitle.find("optimizer in CPU RAM") != std::string::npos &&
                     trainingTitle.find("FSDP") != std::string::npos,
                 trainingTitle.c_str());
        s.task = Task::Inference;
        s.serving = ServingConfig{};
        const std::string title = scenarioTitle(s) + " " + scenarioSummaryText(s);
        for (const char *word : {"torchtune", "optimizer in CPU RAM", "FSDP", "fused-kernel"})
            QVERIFY2(title.find(word) == std::string::npos, (std::string(word) + " in: " + title).c_str());
        QVERIFY2(title.find("vLLM") != std::string::npos, title.c_str());
    }
};

QTEST_GUILESS_MAIN(TestSolveProps)
#include "tst_solveprops.moc"
