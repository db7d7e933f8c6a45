// SPDX-License-Identifier: GPL-3.0-or-later
// Engine start-up logs read as each engine wrote them (tests/data/logs, published logs with their
// sources in its README): the engine, the figures and the launch. Where a log prints figures
// that depend on each other, the test checks the reader's numbers against that arithmetic (written
// out in the comments), so a wrong unit or a misread line fails. Malformed logs are refused with
// the line named.
#include "measure/enginelog.h"

#include <QFile>
#include <QtTest>
#include <cmath>

using namespace headroom;

namespace {

constexpr double kGiB = 1073741824.0;
constexpr double kMiB = 1048576.0;

std::string logText(const char *name)
{
    QFile f(QStringLiteral(HEADROOM_SOURCE_DIR "/tests/data/logs/") + QLatin1String(name));
    if (!f.open(QIODevice::ReadOnly))
        qFatal("cannot open %s", name);
    return f.readAll().toStdString();
}

EngineLog read(const char *name) { return readEngineLog(logText(name)); }

double figure(const EngineLog &log, const char *key)
{
    const LogFigure *f = log.figure(key);
    if (!f)
        qFatal("no figure %s", key);
    return f->value;
}

const LlamaBreakdownRow &row(const EngineLog &log, const char *device)
{
    for (const LlamaBreakdownRow &r : log.breakdown)
        if (r.device == device)
            return r;
    qFatal("no breakdown row %s", device);
}

/// The message of the refusal of `text`, or "" when it was read.
QString refusal(const std::string &text)
{
    try {
        readEngineLog(text);
    } catch (const EngineLogError &e) {
        return QString::fromStdString(e.what());
    }
    return {};
}

} // namespace

class TestEngineLog : public QObject
{
    Q_OBJECT
private slots:
    void vllmV0Budget()
    {
        const EngineLog log = read("vllm-v0-tp4-24gb-pr14447.log");
        QCOMPARE(log.engine, LogEngine::Vllm);
        QCOMPARE(figure(log, "weights"), 21.21 * kGiB);
        QCOMPARE(figure(log, "non_torch"), 0.20 * kGiB);
        QCOMPARE(figure(log, "activation_peak"), 0.37 * kGiB);
        QCOMPARE(figure(log, "kv_cache"), 1.57 * kGiB);
        QCOMPARE(figure(log, "total_gpu_memory"), 23.58 * kGiB);
        QCOMPARE(log.setting("serving.gpu_memory_utilization")->value.get<double>(), 0.99);
        // vLLM's own sum: 23.35 (budget) - 21.21 - 0.20 - 0.37 = 1.57 GiB for the KV cache, and
        // 23.58 x 0.99 = 23.344 -> 23.35 printed.
        const double kv = figure(log, "budget") - figure(log, "weights") - figure(log, "non_torch") -
                          figure(log, "activation_peak");
        QVERIFY(std::abs(kv - figure(log, "kv_cache")) < 0.006 * kGiB);
        QVERIFY(std::abs(figure(log, "total_gpu_memory") * 0.99 - figure(log, "budget")) < 0.01 * kGiB);
        // The first line belongs to the figures: line 1.
        QCOMPARE(log.figure("weights")->line, std::size_t(1));
    }
    void vllmV1Blocks()
    {
        const EngineLog log = read("vllm-v1-llama-3.1-70b-w8a8-pr12569.log");
        QCOMPARE(log.engine, LogEngine::Vllm);
        QCOMPARE(log.model, std::string("neuralmagic/Meta-Llama-3.1-70B-Instruct-quantized.w8a8"));
        QCOMPARE(log.setting("serving.max_model_len")->value.get<int>(), 2048);
        QCOMPARE(log.setting("serving.gpu_memory_utilization")->value.get<double>(), 0.98);
        // "Loading model weights took 67.7229 GB": bytes / 2^30 in vLLM's code.
        QCOMPARE(figure(log, "weights"), 67.7229 * kGiB);
        QCOMPARE(figure(log, "gpu_blocks"), 1381.0);
        QCOMPARE(figure(log, "max_concurrency_tokens"), 2048.0);
        // 1381 blocks x 16 tokens (vLLM's default block) / 2048 tokens = 10.789 -> "10.79x".
        QVERIFY(std::abs(figure(log, "gpu_blocks") * 16 / figure(log, "max_concurrency_tokens") -
                         figure(log, "max_concurrency")) < 0.005);
    }
    void vllmSummaryLine()
    {
        const EngineLog log = read("vllm-0.10.2-qwen3-next-80b-2xh200-tp2.log");
        QCOMPARE(log.version, std::string("0.10.2"));
        QCOMPARE(log.model, std::string("/data/models/Qwen3-Next-80B-A3B-Instruct"));
        QCOMPARE(log.setting("parallel.tensor")->value.get<int>(), 2);
        QCOMPARE(log.setting("serving.max_model_len")->value.get<int>(), 262144);
        QCOMPARE(log.setting("serving.gpu_memory_utilization")->value.get<double>(), 0.9);
        // "Model loading took 74.2812 GiB" (the first line that prints it), the summary's 74.28.
        QCOMPARE(figure(log, "weights"), 74.2812 * kGiB);
        QCOMPARE(figure(log, "total_gpu_memory"), 139.81 * kGiB);
        QCOMPARE(figure(log, "budget"), 125.83 * kGiB);
        QCOMPARE(figure(log, "activation_peak"), 5.58 * kGiB);
        QCOMPARE(figure(log, "non_torch"), 1.38 * kGiB);
        QCOMPARE(figure(log, "cuda_graph"), 2.37 * kGiB);
        // vLLM 0.10.2's own sums: 139.81 x 0.9 = 125.83 GiB of budget; less 74.28 (weights),
        // 5.58 (activation peak) and 1.38 (non-torch) leaves 44.59 GiB, the "Available KV cache
        // memory" it printed (the CUDA graphs, captured after, are not taken out).
        QVERIFY(std::abs(figure(log, "total_gpu_memory") * 0.9 - figure(log, "budget")) < 0.006 * kGiB);
        QVERIFY(std::abs(figure(log, "budget") - 74.28 * kGiB - figure(log, "activation_peak") - figure(log, "non_torch") -
                         figure(log, "kv_cache")) < 0.006 * kGiB);
        QCOMPARE(figure(log, "kv_tokens"), 973760.0);
        QVERIFY(!log.refusal);
        // The refusal wording of the same line, with the device named (vLLM 0.11).
        const EngineLog refused = readEngineLog(
            "ValueError: Free memory on device cuda:0 (27.28/31.86 GiB) on startup is less than desired GPU memory "
            "utilization (0.97, 30.9 GiB). Decrease GPU memory utilization or reduce GPU memory used by other processes.");
        QVERIFY(refused.refusal);
        QCOMPARE(figure(refused, "total_gpu_memory"), 31.86 * kGiB);
        QCOMPARE(figure(refused, "budget"), 30.9 * kGiB);
    }
    void vllmV1Tokens()
    {
        const EngineLog log = read("vllm-v1-kimi-linear-tp2-issue28228.log");
        QCOMPARE(figure(log, "kv_cache"), 2.30 * kGiB);
        QCOMPARE(figure(log, "kv_tokens"), 75840.0); // "75,840 tokens"
        QCOMPARE(figure(log, "max_concurrency_tokens"), 120000.0);
        QCOMPARE(figure(log, "max_concurrency"), 2.48);
        QCOMPARE(log.figure("kv_tokens")->line, std::size_t(5));
    }
    void vllmOldBlocks()
    {
        const EngineLog log = read("vllm-v0-gpu-blocks-issue7256.log");
        // "# GPU blocks: 7823, # CPU blocks: 512": the comma ends the number.
        QCOMPARE(figure(log, "gpu_blocks"), 7823.0);
    }
    void vllmContinuedCommand()
    {
        const EngineLog log = read("vllm-qwen3-235b-fp8-tp4-issue21348.log");
        QCOMPARE(log.engine, LogEngine::Vllm);
        QCOMPARE(log.model, std::string("/path/to/Qwen3-235B-A22B-FP8"));
        QCOMPARE(log.setting("parallel.tensor")->value.get<int>(), 4); // on the command's third line
        QCOMPARE(figure(log, "kv_cache"), 8.11 * kGiB);
        QCOMPARE(figure(log, "kv_tokens"), 178880.0);
    }
    void sglangKvGib()
    {
        const EngineLog log = read("sglang-qwen3-235b-fp8-tp4-issue21348.log");
        QCOMPARE(log.engine, LogEngine::Sglang);
        QCOMPARE(log.setting("parallel.tensor")->value.get<int>(), 4);
        QCOMPARE(log.setting("serving.mem_fraction_static")->value.get<double>(), 0.93);
        QCOMPARE(figure(log, "kv_tokens"), 367404.0);
        // Qwen3-235B-A22B: 94 layers, 4 KV heads (1 per GPU at TP 4), head_dim 128, bf16 cache:
        // K = 367,404 x 94 x 1 x 128 x 2 B = 8,841,205,248 B = 8.234 GiB ("8.23 GB": SGLang
        // divides by 2^30). K + V read as GiB must be within 0.1% of 2 x that; read as 10^9
        // bytes it would be 7% short.
        const double kv = 2.0 * 367404 * 94 * 128 * 2;
        QVERIFY2(std::abs(figure(log, "kv_cache") - kv) / kv < 0.001, qPrintable(QString::number(figure(log, "kv_cache"))));
    }
    void sglangRanks()
    {
        const EngineLog log = read("sglang-tp8-pr11716.log");
        QCOMPARE(figure(log, "kv_tokens"), 2795207.0);
        QCOMPARE(figure(log, "kv_cache"), (53.31 + 53.31) * kGiB);
        QCOMPARE(figure(log, "free_after_kv_cache"), 11.87 * kGiB);
        const EngineLog graphs = read("sglang-cuda-graph-pr12978.log");
        QCOMPARE(figure(graphs, "cuda_graph"), 1.04 * kGiB); // the first rank printed
    }
    void trtllmBytes()
    {
        const EngineLog log = read("trtllm-0.8-a100-issue1400.log");
        QCOMPARE(log.engine, LogEngine::TensorrtLlm);
        QCOMPARE(figure(log, "kv_cache"), 69524783104.0);
        QCOMPARE(figure(log, "kv_tokens"), 132608.0);
        // 69,524,783,104 B / 132,608 tokens = 524,288 B a token = 32 layers x 2 (K, V) x 4,096 x
        // 2 B: a Llama-2-7B-shaped model in fp16.
        QCOMPARE(figure(log, "kv_cache") / figure(log, "kv_tokens"), 32.0 * 2 * 4096 * 2);
    }
    void trtllmBlocks()
    {
        const EngineLog log = read("trtllm-triton-pr150.log");
        QCOMPARE(figure(log, "kv_cache"), 78.30 * kGiB);
        // 116,617 primary blocks x 32 tokens a block = 3,731,744 tokens, as the log says.
        QCOMPARE(figure(log, "gpu_blocks") * figure(log, "tokens_per_block"), figure(log, "kv_tokens"));
        const EngineLog pool = read("trtllm-0.13-qwen1.5-7b-issue2268.log");
        QCOMPARE(figure(pool, "total_gpu_memory"), 39.39 * kGiB);
        QCOMPARE(figure(pool, "free_before_kv_cache"), 21.89 * kGiB);
        QCOMPARE(figure(pool, "gpu_blocks"), 631.0);
    }
    void llamaCppFirstTable()
    {
        const EngineLog log = read("llamacpp-breakdown-3x4090-pr15860.log");
        QCOMPARE(log.engine, LogEngine::LlamaCpp);
        QCOMPARE(log.breakdown.size(), std::size_t(4));
        const LlamaBreakdownRow &gpu = row(log, "CUDA0 (RTX 4090)");
        QCOMPARE(gpu.total, 24080.0);
        QCOMPARE(gpu.model, 13169.0);
        QCOMPARE(gpu.context, 38.0);
        QCOMPARE(gpu.compute, 985.0);
        // total = free + self + unaccounted: 9,436 + 14,193 + 451 = 24,080; self = model +
        // context + compute to a MiB of rounding: 13,169 + 38 + 985 = 14,192.
        QCOMPARE(gpu.free + gpu.self + gpu.unaccounted, gpu.total);
        QVERIFY(std::abs(gpu.model + gpu.context + gpu.compute - gpu.self) <= 1);
        const LlamaBreakdownRow &cpu = row(log, "CPU (EPYC 7742)");
        QCOMPARE(cpu.total, 515628.0);
        QCOMPARE(cpu.self, 72.0);
        QCOMPARE(cpu.model + cpu.context + cpu.compute, cpu.self);
    }
    void llamaCppUnderflow()
    {
        const EngineLog log = read("llamacpp-1080ti-underflow-issue19437.log");
        QCOMPARE(log.gpuName, std::string("NVIDIA GeForce GTX 1080 Ti"));
        const LlamaBreakdownRow &gpu = row(log, "CUDA0 (GTX 1080 Ti)");
        // "17592186036877" is 2^44 - 7,539: llama.cpp's unsigned total - (free + self), negative.
        // Read as 11,165 - 8,702 - 10,001 = -7,538 MiB.
        QCOMPARE(gpu.unaccounted, -7538.0);
        QCOMPARE(row(log, "Host").self, 197.0);
        QVERIFY(log.refusal); // "failed to fit params to free device memory"
        QCOMPARE(log.refusal->line, std::size_t(8));
    }
    void llamaCppLastTableWins()
    {
        const EngineLog log = read("llamacpp-fit-5090-3090-ollama16031.log");
        QCOMPARE(log.breakdown.size(), std::size_t(3));
        const LlamaBreakdownRow &second = row(log, "CUDA1 (RTX 3090)");
        QCOMPARE(second.self, 21070.0); // the second table's, not the trial's 17,829
        QCOMPARE(second.context, 18432.0);
        QCOMPARE(second.unaccounted, -19827.0);
        QCOMPARE(second.line, std::size_t(11));
    }
    void llamaCppBuffers()
    {
        const EngineLog log = read("llamacpp-gemma-ctx32k-ollama10114.log");
        QCOMPARE(figure(log, "weights"), 577.22 * kMiB);
        QCOMPARE(figure(log, "host_weights"), 520.30 * kMiB);
        QCOMPARE(log.device, std::string("CUDA0"));
        QCOMPARE(log.setting("serving.n_ctx")->value.get<int>(), 32768);
        QCOMPARE(log.setting("serving.n_batch")->value.get<int>(), 512);
        QCOMPARE(log.setting("serving.n_ubatch")->value.get<int>(), 512);
        QCOMPARE(log.setting("serving.n_parallel")->value.get<int>(), 1);
        QCOMPARE(log.setting("serving.flash_attn")->value.get<bool>(), false);
        QCOMPARE(log.setting("serving.n_gpu_layers")->value.get<int>(), -1); // 25/25
        QCOMPARE(log.setting("serving.cache_type_k")->value.get<std::string>(), std::string("f16"));
        QVERIFY(!log.setting("serving.n_ctx_per_seq"));
    }
    void llamaCppColouredLog()
    {
        // llama.cpp's common_log with colours and timestamps (ggml-org/llama.cpp issue #27680,
        // first post by SampleGHUsername): still llama.cpp's lines.
        const std::string head =
            "\x1b[34m0.00.612.797\x1b[0m \x1b[32mI \x1b[0mprint_info: model params          = 284.33 B\n"
            "\x1b[34m0.00.612.797\x1b[0m \x1b[32mI \x1b[0mprint_info: general.name          = DeepSeek-V4-Flash-0731\n";
        QVERIFY(refusal(head).contains(QStringLiteral("a llama.cpp log without a memory figure")));
        const EngineLog log = readEngineLog(head + "\x1b[34m0.01.000.000\x1b[0m \x1b[32mI \x1b[0mload_tensors:        CUDA0 model buffer size =  4403.49 MiB\n");
        QCOMPARE(log.engine, LogEngine::LlamaCpp);
        QCOMPARE(log.model, std::string("DeepSeek-V4-Flash-0731"));
        QCOMPARE(figure(log, "weights"), 4403.49 * kMiB);
    }
    void refused_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("expected");
        QTest::newRow("empty") << QString() << QStringLiteral("no line of a vLLM");
        QTest::newRow("prose") << QStringLiteral("hello\nworld\n") << QStringLiteral("no line of a vLLM");
        QTest::newRow("two engines")
            << QStringLiteral("INFO Available KV cache memory: 2.30 GiB\n[TP0] KV Cache is allocated. #tokens: 1, K size: 1 GB, V size: 1 GB\n")
            << QStringLiteral("line 2: a SGLang line in a log whose line 1 is vLLM's");
        QTest::newRow("cut vllm") << QStringLiteral("INFO x\nINFO Available KV cache memory: ")
                                  << QStringLiteral("line 2: \"Available KV cache memory:\" has no figure");
        QTest::newRow("cut unit") << QStringLiteral("Available KV cache memory: 2.30")
                                  << QStringLiteral("line 1: \"Available KV cache memory:\" has no figure");
        QTest::newRow("cut v0 line")
            << QStringLiteral("INFO worker.py:267] model weights take 21.21GiB; non_torch_memory takes 0.20GiB; PyTorch activation peak memory ta")
            << QStringLiteral("line 1: \"activation peak memory takes\" has no figure");
        QTest::newRow("cut sglang") << QStringLiteral("KV Cache is allocated. #tokens: 100, K size: 1.5 GB, V size:")
                                    << QStringLiteral("line 1: \"V size:\" has no figure");
        QTest::newRow("cut breakdown")
            << QStringLiteral("llama_memory_breakdown_print: |   - CUDA0 (RTX 4090)   | 24080 = 9436 + (14193")
            << QStringLiteral("line 1: a memory breakdown row with 3 figures");
        QTest::newRow("no figure") << QStringLiteral("INFO 01-30 llm_engine.py:237] Initializing an LLM engine (v0.6.3) with config: model='m'\n")
                                   << QStringLiteral("a vLLM log without a memory figure");
    }
    void refused()
    {
        QFETCH(QString, text);
        QFETCH(QString, expected);
        const QString message = refusal(text.toStdString());
        QVERIFY2(message.contains(expected), qPrintable(message));
    }
    void refusedBytes()
    {
        QVERIFY(refusal("Available KV cache memory: 1 GiB\n\xff\xfe\n").startsWith(QStringLiteral("line 2: not UTF-8")));
        QVERIFY(refusal(std::string(kEngineLogBytes + 1, 'a')).contains(QStringLiteral("more than the 16 MiB")));
        // A line longer than a memory line can be is skipped, not read.
        QVERIFY(refusal("Available KV cache memory: 1 GiB" + std::string(kEngineLogLineBytes, ' ')).contains(
            QStringLiteral("no line of")));
    }
    void sniff()
    {
        QVERIFY(looksLikeEngineLog(logText("sglang-tp8-pr11716.log")));
        QVERIFY(!looksLikeEngineLog("{\"format\": \"headroom-scenario\"}"));
    }
};

QTEST_GUILESS_MAIN(TestEngineLog)
#include "tst_enginelog.moc"
