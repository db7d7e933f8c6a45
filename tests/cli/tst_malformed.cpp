// SPDX-License-Identifier: GPL-3.0-or-later
// Hostile input against the real `headroom` binary, one row per case: each exits 2 with one
// line naming the field, prints nothing a terminal would act on, and leaves no output file.
// A hang is caught by ctest's TIMEOUT for this test (tests/CMakeLists.txt), not by a clock here.
#include "io/inputpolicy.h"
#include "processutil.h"

#include <QDir>
#include <QFile>
#include <QProcess>
#include <QScopeGuard>
#include <QTemporaryDir>
#include <QtTest>
#include <cstring>
#include <nlohmann/json.hpp>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

using headroom::test::Run;
using namespace headroom;
using nlohmann::json;

namespace {

const json kScenario = {{"format", "headroom-scenario"}, {"version", 1}};

/// A scenario document with `keys` merged in.
json scenarioWith(const json &keys)
{
    json doc = kScenario;
    doc.update(keys);
    return doc;
}

/// `depth` nested lists.
std::string nested(int depth)
{
    return std::string(std::size_t(depth), '[') + std::string(std::size_t(depth), ']');
}

/// A lesson of `count` steps: a whole scenario, then `set` steps.
json lessonOf(std::size_t count, const json &first = kScenario)
{
    json steps = json::array();
    steps.push_back({{"title", "start"}, {"caption", "c"}, {"scenario", first}});
    for (std::size_t i = 1; i < count; ++i)
        steps.push_back({{"title", "s" + std::to_string(i)},
                         {"caption", "c"},
                         {"set", {{"train.micro_batch", int(i % 8) + 1}}}});
    return {{"format", "headroom-lesson"}, {"version", 1}, {"title", "t"}, {"steps", steps}};
}

/// A safetensors file: the 8-byte length, the header text and `dataBytes` zero bytes.
QByteArray safetensors(const QByteArray &header, int dataBytes)
{
    QByteArray bytes(8, '\0');
    quint64 length = quint64(header.size());
    for (int i = 0; i < 8; ++i)
        bytes[i] = char((length >> (8 * i)) & 0xFF);
    return bytes + header + QByteArray(dataBytes, '\0');
}

/// A scenario whose activations pass 2^64 bytes (the estimator refuses it).
const json kOverflowing = scenarioWith(
    {{"train", {{"micro_batch", 1048576}, {"seq_len", 16777216}}}, {"kernels", {{"attention", "eager"}}}});

} // namespace

class TestMalformed : public QObject
{
    Q_OBJECT
private:
    QTemporaryDir m_dir;
    int m_socket = -1;

    QString path(const QString &name) const { return m_dir.filePath(name); }

    void write(const char *name, const QByteArray &content)
    {
        QFile file(path(QString::fromLatin1(name)));
        QVERIFY(file.open(QIODevice::WriteOnly));
        QCOMPARE(file.write(content), qint64(content.size()));
    }
    void write(const char *name, const json &doc) { write(name, QByteArray::fromStdString(doc.dump())); }
    void link(const char *name, const char *target)
    {
        QVERIFY(QFile::link(QString::fromLatin1(target), path(QString::fromLatin1(name))));
    }
    void fifo(const char *name)
    {
        QCOMPARE(::mkfifo(QFile::encodeName(path(QString::fromLatin1(name))).constData(), 0600), 0);
    }

private slots:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        write("ok.json", kScenario);
        const QByteArray factory("model_name_or_path: meta-llama/Meta-Llama-3-8B-Instruct\nstage: sft\n"
                                 "finetuning_type: lora\ncutoff_len: 2048\nper_device_train_batch_size: 1\n");
        write("names-passwd.yml", factory + "deepspeed: /etc/passwd\n");
        write("names-shadow.yml", factory + "deepspeed: " + QByteArray("../").repeated(40) + "etc/shadow\n");
        // Classes of the issue: depth, devices, FIFOs, size, counts, duplicates, escapes.
        write("deep-name.json", "{\"format\":\"headroom-scenario\",\"version\":1,\"name\":" +
                                    QByteArray::fromStdString(nested(50000)) + "}");
        write("deep-targets.json", QByteArray(R"({"format":"headroom-scenario","version":1,"train":{"lora":{"targets":)") +
                                       QByteArray::fromStdString(nested(100)) + "}}}");
        write("big.json", "{\"format\":\"headroom-scenario\",\"version\":1,\"name\":\"" +
                              QByteArray(50 * 1024 * 1024, 'x') + "\"}");
        write("just-over.json", QByteArray::fromStdString(kScenario.dump()) +
                                    QByteArray(int(limits::kDocumentBytes), ' '));
        write("dup-version.json", QByteArray(R"({"format":"headroom-scenario","version":1,"version":1})"));
        write("dup-first-invalid.json", QByteArray(R"({"format":"headroom-scenario","version":1,"train":{"micro_batch":0,"micro_batch":2}})"));
        write("dup-model.json", QByteArray(R"({"format":"headroom-scenario","version":1,"model":{"preset":"llama-2-7b","layers":2,"layers":3}})"));
        write("dup-pin.json", QByteArray(R"({"format":"headroom-comparison","version":1,"current":{"format":"headroom-scenario","version":1},"pins":[{"format":"headroom-scenario","version":1,"train":{"seq_len":1,"seq_len":2}}]})"));
        write("dup-lesson-set.json", QByteArray(R"({"format":"headroom-lesson","version":1,"title":"t","steps":[{"title":"a","caption":"b","scenario":{"format":"headroom-scenario","version":1}},{"title":"a","caption":"b","set":{"train.micro_batch":2,"train.micro_batch":4}}]})"));
        write("escape-key.json", QByteArray("{\"format\":\"headroom-scenario\",\"version\":1,\"\\u001b[31mred\":1}"));
        write("escape-preset.json", QByteArray("{\"format\":\"headroom-scenario\",\"version\":1,\"model\":{\"preset\":\"\\u001b]0;owned\\u0007\"}}"));
        write("escape-gpu.json", QByteArray("{\"format\":\"headroom-scenario\",\"version\":1,\"gpus\":[\"\\u009b2J\\u202e\"]}"));
        write("bidi-key.json", QByteArray("{\"format\":\"headroom-scenario\",\"version\":1,\"train\":{\"micro\\u202ebatch\":1}}"));
        write("long-name.json", scenarioWith({{"name", std::string(limits::kTitleBytes + 1, 'n')}}));
        json hugeArray = json::array();
        for (int i = 0; i < 200000; ++i)
            hugeArray.push_back(i);
        write("array-name.json", scenarioWith({{"name", hugeArray}}));
        write("lesson-2000.json", lessonOf(2000));
        write("lesson-201.json", lessonOf(limits::kLessonSteps + 1));
        write("lesson-2.json", lessonOf(2));
        json longCaption = lessonOf(1);
        longCaption["steps"][0]["caption"] = std::string(limits::kCaptionBytes + 1, 'c');
        write("lesson-caption.json", longCaption);
        json longTitle = lessonOf(1);
        longTitle["title"] = std::string(limits::kTitleBytes + 1, 't');
        write("lesson-title.json", longTitle);
        write("lesson-overflow.json", lessonOf(1, kOverflowing));
        json laterOverflow = lessonOf(2);
        laterOverflow["steps"][1] = {{"title", "big"}, {"caption", "c"}, {"scenario", kOverflowing}};
        write("lesson-overflow-2.json", laterOverflow);
        write("lesson-deep.json", QByteArray(R"({"format":"headroom-lesson","version":1,"title":"t","steps":)") +
                                      QByteArray::fromStdString(nested(70)) + "}");
        write("lesson-unknown.json", json{{"format", "headroom-lesson"}, {"version", 1}, {"title", "t"},
                                          {"steps", lessonOf(1)["steps"]}, {"notes", "x"}});
        write("overflow.json", kOverflowing);
        write("comparison-overflow.json", json{{"format", "headroom-comparison"}, {"version", 1},
                                               {"current", kScenario}, {"pins", {kOverflowing}}});
        json ninePins = {{"format", "headroom-comparison"}, {"version", 1}, {"current", kScenario}, {"pins", json::array()}};
        for (int i = 0; i < 9; ++i)
            ninePins["pins"].push_back(kScenario);
        write("nine-pins.json", ninePins);
        write("pins-object.json", json{{"format", "headroom-comparison"}, {"version", 1}, {"current", kScenario}, {"pins", {{"a", 1}}}});
        write("comparison-unknown.json", json{{"format", "headroom-comparison"}, {"version", 1}, {"current", kScenario}, {"extra", 1}});
        write("comparison-v2.json", json{{"format", "headroom-comparison"}, {"version", 2}, {"current", kScenario}});
        write("comparison-no-current.json", json{{"format", "headroom-comparison"}, {"version", 1}});
        write("empty.json", QByteArray());
        write("trailing.json", QByteArray::fromStdString(kScenario.dump()) + "{}");
        write("comment.json", QByteArray::fromStdString(kScenario.dump()) + " // note");
        write("utf16.json", QByteArray("\xff\xfe{\0}\0", 6));
        write("binary.json", QByteArray("\x89PNG\r\n\x1a\n\0\0\0\rIHDR", 16));
        write("number-overflow.json", QByteArray(R"({"format":"headroom-scenario","version":1,"train":{"micro_batch":1e400}})"));
        write("top-array.json", QByteArray("[1,2,3]"));
        write("top-null.json", QByteArray("null"));
        write("no-format.json", QByteArray(R"({"version":1})"));
        write("gpus-17.json", scenarioWith({{"gpus", std::vector<std::string>(17, "t4")}}));
        write("batch-2-64.json", scenarioWith({{"train", {{"micro_batch", 18446744073709551615ull}}}}));
        write("batch-negative.json", scenarioWith({{"train", {{"micro_batch", -1}}}}));
        write("batch-fraction.json", scenarioWith({{"train", {{"micro_batch", 1.5}}}}));
        write("params-1e16.json", scenarioWith({{"model", {{"preset", "llama-2-7b"}, {"params", 10000000000000000ull}}}}));
        write("fragmentation-11.json", scenarioWith({{"overhead", {{"fragmentation", 11}}}}));
        // The issue's repro: a fragmentation factor in range (6-10) on a run large enough that the
        // reserved bytes pass 2^63 once wrapped through llround and printed 2^63 B with exit 0.
        write("fragmentation-8-large.json",
              scenarioWith({{"model", {{"params", 1000000000}, {"hidden", 1048576}, {"layers", 1024}}},
                            {"train", {{"method", "full"}, {"micro_batch", 1024}, {"seq_len", 32768}}},
                            {"overhead", {{"fragmentation", 8}}}}));
        write("context-mib-negative.json", scenarioWith({{"overhead", {{"cuda_context_mib", -1}}}}));
        write("kv-heads-divide.json", scenarioWith({{"model", {{"preset", "llama-2-7b"}, {"kv_heads", 7}}}}));
        write("unknown-enum.json", scenarioWith({{"kernels", {{"attention", "flash3"}}}}));
        write("offload-params.json", scenarioWith({{"parallel", {{"offload_params", true}}}}));
        // GPT-2's 12 layers cannot form 16 stages; its 1,024 positions hold the 512 tokens (the
        // layout is the estimate's refusal, which comes after the positions' check).
        write("pipeline-layers.json", scenarioWith({{"model", {{"preset", "gpt2"}}}, {"train", {{"seq_len", 512}}},
                                                    {"parallel", {{"gpus", 16}, {"pipeline", 16}}}}));

        // model.config and --model-config: devices, FIFOs, folders, sizes, depth, duplicates.
        link("zero-link.json", "/dev/zero");
        fifo("fifo.json");
        QVERIFY(QDir(m_dir.path()).mkpath(QStringLiteral("folder.json")));
        // A listening Unix socket (the file type that open() cannot read at all).
        m_socket = ::socket(AF_UNIX, SOCK_STREAM, 0);
        QVERIFY(m_socket >= 0);
        sockaddr_un address{};
        address.sun_family = AF_UNIX;
        const QByteArray socketPath = QFile::encodeName(path(QStringLiteral("socket.json")));
        QVERIFY(std::size_t(socketPath.size()) < sizeof address.sun_path);
        std::memcpy(address.sun_path, socketPath.constData(), std::size_t(socketPath.size()));
        QCOMPARE(::bind(m_socket, reinterpret_cast<const sockaddr *>(&address), sizeof address), 0);
        QCOMPARE(::listen(m_socket, 1), 0);
        write("config-zero.json", scenarioWith({{"model", {{"config", "zero-link.json"}}}}));
        write("config-fifo.json", scenarioWith({{"model", {{"config", "fifo.json"}}}}));
        write("config-folder.json", scenarioWith({{"model", {{"config", "folder.json"}}}}));
        write("config-missing.json", scenarioWith({{"model", {{"config", "absent-config.json"}}}}));
        write("config-big-file.json", "{\"model_type\":\"llama\",\"x\":\"" + QByteArray(5 * 1024 * 1024, 'x') + "\"}");
        write("config-big.json", scenarioWith({{"model", {{"config", "config-big-file.json"}}}}));
        write("config-deep-file.json", "{\"model_type\":\"llama\",\"rope_scaling\":" +
                                           QByteArray::fromStdString(nested(1000)) + "}");
        write("config-deep.json", scenarioWith({{"model", {{"config", "config-deep-file.json"}}}}));
        write("config-dup-file.json", QByteArray(R"({"model_type":"llama","num_hidden_layers":2,"num_hidden_layers":3})"));
        write("config-dup.json", scenarioWith({{"model", {{"config", "config-dup-file.json"}}}}));
        write("config-not-json-file.json", QByteArray("model_type = llama"));
        write("config-not-json.json", scenarioWith({{"model", {{"config", "config-not-json-file.json"}}}}));
        write("config-lacks.json", QByteArray(R"({"model_type":"llama"})"));
        write("config-type.json", QByteArray("{\"model_type\":\"\\u001b[2Jt5\"}"));

        // Safetensors: files, indexes, headers.
        QVERIFY(QDir(m_dir.path()).mkpath(QStringLiteral("ck-zero")));
        link("ck-zero/model.safetensors.index.json", "/dev/zero");
        QVERIFY(QDir(m_dir.path()).mkpath(QStringLiteral("ck-fifo")));
        write("ck-fifo/model.safetensors.index.json", json{{"weight_map", {{"w", "model-1.safetensors"}}}});
        fifo("ck-fifo/model-1.safetensors");
        link("zero.safetensors", "/dev/zero");
        write("dup-tensor.safetensors",
              safetensors(R"({"w":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},"w":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}})", 8));
        write("huge-header.safetensors", QByteArray("\x00\xc2\xeb\x0b\x00\x00\x00\x00", 8) + QByteArray(16, '{'));
        write("deep-header.safetensors", safetensors("{\"__metadata__\":" + QByteArray::fromStdString(nested(100)) + "}", 0));
        write("truncated.safetensors", safetensors(R"({"w":{"dtype":"F32","shape":[4],"data_offsets":[0,16]}})", 4));
        write("bad-dtype.safetensors", safetensors(R"({"w":{"dtype":"F7","shape":[1],"data_offsets":[0,1]}})", 1));
        write("escape-tensor.safetensors", safetensors("{\"\\u001b[31mw\":{\"dtype\":\"F99\",\"shape\":[1],\"data_offsets\":[0,1]}}", 1));
        write("dup-index.json", QByteArray(R"({"weight_map":{"w":"a.safetensors","w":"b.safetensors"}})"));
        json manyShards = {{"weight_map", json::object()}};
        for (std::size_t i = 0; i <= limits::kShards; ++i)
            manyShards["weight_map"]["t" + std::to_string(i)] = "shard-" + std::to_string(i) + ".safetensors";
        write("many-shards.index.json", manyShards);
        write("escape-index.json", json{{"weight_map", {{"w", "../outside.safetensors"}}}});
        write("index-missing-shard.json", json{{"weight_map", {{"w", "absent.safetensors"}}}});
        // A shard named by 100,000 characters: the message quoted the whole path it looked for.
        write("index-long-shard.json", json{{"weight_map", {{"w", std::string(100000, 's') + ".safetensors"}}}});

        // Measurement cases for `validate`.
        QVERIFY(QDir(m_dir.path()).mkpath(QStringLiteral("cases-dup")));
        write("cases-dup/case.json", QByteArray(R"({"format":"headroom-measurement","format":"x"})"));
        QVERIFY(QDir(m_dir.path()).mkpath(QStringLiteral("cases-big")));
        write("cases-big/case.json", QByteArray(int(limits::kDocumentBytes) + 1, ' '));
        QVERIFY(QDir(m_dir.path()).mkpath(QStringLiteral("cases-deep")));
        write("cases-deep/case.json", "{\"format\":" + QByteArray::fromStdString(nested(65)) + "}");

        // Issue 29: training configs (aliases, merges, PyYAML's reading, JSON as Python reads it).
        QByteArray laughs = "base_model: NousResearch/Meta-Llama-3-8B\na: &a [\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\"]\n";
        for (char level = 'b'; level <= 'i'; ++level) {
            laughs += QByteArray(1, level) + ": &" + QByteArray(1, level) + " [";
            for (int i = 0; i < 9; ++i)
                laughs += QByteArray(i ? "," : "") + "*" + QByteArray(1, char(level - 1));
            laughs += "]\n";
        }
        write("laughs.yml", laughs);
        QByteArray aliases = "base_model: NousResearch/Meta-Llama-3-8B\nl: &l [";
        for (int i = 0; i < 20000; ++i)
            aliases += QByteArray(i ? "," : "") + "1";
        aliases += "]\nuses:\n";
        for (int i = 0; i < 4000; ++i)
            aliases += "  - *l\n";
        write("aliases.yml", aliases);
        QByteArray deepYaml = "base_model: x/y\n";
        for (int i = 0; i < 100; ++i)
            deepYaml += QByteArray(i * 2, ' ') + "k:\n";
        write("deep.yml", deepYaml);
        write("dup.yml", QByteArray("base_model: x/y\nmicro_batch_size: 1\nmicro_batch_size: 4\n"));
        write("axolotl-1.yml", QByteArray("base_model: NousResearch/Meta-Llama-3-8B\nmicro_batch_size: 1\n"));
        write("axolotl-4.yml", QByteArray("base_model: NousResearch/Meta-Llama-3-8B\nmicro_batch_size: 4\n"));
        write("second-doc.yml", QByteArray("base_model: x/y\nmicro_batch_size: 1\n---\nmicro_batch_size: 4\n"));
        write("merge-scalar.yml", QByteArray("base_model: x/y\nrun:\n  <<: 4\n"));
        write("huge-float.yml", QByteArray("base_model: x/y\nmicro_batch_size: 1.0e+999\n"));
        write("huge-int.yml", QByteArray("base_model: x/y\nmicro_batch_size: 99999999999999999999\n"));
        write("e-notation.yml", QByteArray("base_model: x/y\nlora_dropout: 5e-2\nadapter: lora\n"));
        write("long-model.yml", "base_model: " + QByteArray(4 * 1024 * 1024 - 100, 'm') + "\n");
        write("ds-dup.json", QByteArray(R"({"train_micro_batch_size_per_gpu": 1, "train_micro_batch_size_per_gpu": 4})"));
        write("ds-trailing.json", QByteArray(R"({"train_micro_batch_size_per_gpu": 1} {"zero_optimization": {}})"));
        write("ds-1e999.json", QByteArray(R"({"train_micro_batch_size_per_gpu": 1e999})"));
        write("ds-huge-int.json", QByteArray(R"({"train_micro_batch_size_per_gpu": 99999999999999999999})"));
        write("litgpt.yaml", QByteArray("checkpoint_dir: checkpoints/meta-llama/Llama-2-7b-hf\nlora_r: 8\n"
                                        "train:\n  micro_batch_size: 4\n  global_batch_size: 8\n"));
        write("number-1e999.json", QByteArray(R"({"format":"headroom-scenario","version":1,"train":{"micro_batch":1e999}})"));
        write("number-past-64-bits.json", QByteArray(R"({"format":"headroom-scenario","version":1,"train":{"micro_batch":99999999999999999999}})"));
        // Tensor parallelism that the heads, KV heads or MLP cannot be split by.
        write("tensor-65536.json", scenarioWith({{"model", {{"preset", "llama-2-7b"}}}, {"task", "inference"},
                                                 {"parallel", {{"gpus", 65536}, {"tensor", 65536}}}}));
        write("tensor-3.json", scenarioWith({{"model", {{"preset", "llama-3-8b"}}}, {"task", "inference"},
                                             {"parallel", {{"gpus", 3}, {"tensor", 3}}}}));
        write("tensor-kv-train.json", scenarioWith({{"model", {{"preset", "llama-3-8b"}}},
                                                    {"parallel", {{"gpus", 16}, {"tensor", 16}}}}));
        write("vllm.json", scenarioWith({{"model", {{"preset", "llama-3-8b"}}}, {"task", "inference"},
                                         {"framework", {{"name", "vllm"}}}}));
        write("trainable-over-total.json", scenarioWith({{"model", {{"preset", "llama-2-7b"}, {"params", 1000}}},
                                                         {"train", {{"method", "lora"}}}}));
        // model.config outside the scenario's folder and the home folder.
        write("config-shadow.json", scenarioWith({{"model", {{"config", "/etc/shadow"}}}}));
        write("config-dotdot.json", scenarioWith({{"model", {{"config", "../../../../../../etc/passwd"}}}}));
        write("config-missing-outside.json", scenarioWith({{"model", {{"config", "/nonexistent/config.json"}}}}));
        // Safetensors shards that leave the index's folder through links.
        QVERIFY(QDir(m_dir.path()).mkpath(QStringLiteral("ck-link")));
        write("ck-link/model.safetensors.index.json", json{{"weight_map", {{"w", "link/etc/passwd"}}}});
        link("ck-link/link", "/");
        QVERIFY(QDir(m_dir.path()).mkpath(QStringLiteral("ck-passwd")));
        write("ck-passwd/model.safetensors.index.json", json{{"weight_map", {{"w", "model-1.safetensors"}}}});
        link("ck-passwd/model-1.safetensors", "/etc/passwd");
        QVERIFY(QDir(m_dir.path()).mkpath(QStringLiteral("ck-nowhere")));
        write("ck-nowhere/model.safetensors.index.json", json{{"weight_map", {{"w", "model-1.safetensors"}}}});
        link("ck-nowhere/model-1.safetensors", "/nonexistent/model.safetensors");
        // config.json fields of the wrong type: named with the type expected, never "an unexpected error".
        const json llama = {{"model_type", "llama"}, {"num_hidden_layers", 2}, {"hidden_size", 256},
                            {"intermediate_size", 512}, {"num_attention_heads", 4}, {"vocab_size", 1000}};
        const auto quantized = [&](const json &quantization) {
            json config = llama;
            config["quantization_config"] = quantization;
            return config;
        };
        write("q-method-5.json", quantized({{"quant_method", 5}, {"bits", 4}}));
        write("q-bits-text.json", quantized({{"quant_method", "gptq"}, {"bits", "4"}}));
        write("q-bits-0.json", quantized({{"quant_method", "gptq"}, {"bits", 0}}));
        write("q-bits-65.json", quantized({{"quant_method", "awq"}, {"bits", 65}}));
        write("q-bits-5.json", quantized({{"quant_method", "gptq"}, {"bits", 5}}));
        write("q-bnb-yes.json", quantized({{"quant_method", "bitsandbytes"}, {"load_in_4bit", "yes"}}));
        json textConfig = llama;
        textConfig.erase("model_type");
        write("type-beside-text.json", json{{"model_type", 5}, {"text_config", textConfig}});
        write("text-type-number.json", json{{"model_type", "llava"}, {"text_config", {{"model_type", 7}}}});
        // Issue 29's hostile pass over the newer readers: a probe past its device's memory, a case
        // linking out of its folder, a serving-log case past 2^53, a quoted '${n' in a script.
        json probe = {{"format", "headroom-probe"}, {"version", 1}, {"device", {{"total_bytes", 85899345920ull}}}};
        probe["readings"] = {{{"phase", "load"}, {"allocated_bytes", 1}, {"reserved_bytes", 2}, {"device_used_bytes", 3},
                              {"peak_allocated_bytes", 18446744073709551615ull}, {"peak_reserved_bytes", 2}}};
        write("probe-past-device.json", probe);
        QVERIFY(QDir(m_dir.path()).mkpath(QStringLiteral("cases-link")));
        link("cases-link/case.json", "/etc/passwd");
        QFile serving(QStringLiteral(HEADROOM_SOURCE_DIR "/tests/data/serving/sglang-0.4.1-llama-3.1-8b-h100.json"));
        QVERIFY(serving.open(QIODevice::ReadOnly));
        json servingCase = json::parse(serving.readAll().toStdString());
        servingCase["id"] = "case";
        servingCase["measured"]["kv_cache_bytes"] = 18446744073709551615ull;
        QVERIFY(QDir(m_dir.path()).mkpath(QStringLiteral("cases-kv-2-64")));
        write("cases-kv-2-64/case.json", servingCase);
        servingCase["measured"]["kv_cache_bytes"] = 5826123137ull; // a tenth of the 54.26 GiB it quotes
        QVERIFY(QDir(m_dir.path()).mkpath(QStringLiteral("cases-kv-disagree")));
        write("cases-kv-disagree/case.json", servingCase);
        write("open-brace.sh", QByteArray("n=4\nNPROC_PER_NODE='${n' swift sft --model Qwen/Qwen2.5-7B-Instruct\n"));
    }

    void cleanupTestCase()
    {
        if (m_socket >= 0)
            ::close(m_socket);
    }

    void fullDiskSaysSo()
    {
        // A full disk is "No space left on device", not Qt's "Unknown error" (a short write), and
        // leaves no file. A 64 KiB tmpfs needs root to mount: skipped elsewhere.
        const QString full = path(QStringLiteral("full"));
        QVERIFY(QDir().mkpath(full));
        if (QProcess::execute(QStringLiteral("mount"), {QStringLiteral("-t"), QStringLiteral("tmpfs"), QStringLiteral("-o"),
                                                         QStringLiteral("size=64k"), QStringLiteral("tmpfs"), full}) != 0)
            QSKIP("cannot mount a small tmpfs here (needs root)");
        const auto unmount = qScopeGuard([&] { QProcess::execute(QStringLiteral("umount"), {full}); });
        QFile filler(full + QStringLiteral("/filler"));
        QVERIFY(filler.open(QIODevice::WriteOnly));
        filler.write(QByteArray(60 * 1024, 'x'));
        filler.close();
        for (const char *name : {"chart.png", "chart.svg"}) {
            const QString out = full + QLatin1Char('/') + QLatin1String(name);
            const Run run = headroom::test::runHeadroom({QStringLiteral("render"), path(QStringLiteral("ok.json")),
                                                         QStringLiteral("--out"), out});
            QCOMPARE(run.exitCode, 2);
            QVERIFY2(run.err.contains(QLatin1String("No space left on device")), qPrintable(run.err));
            QVERIFY2(!run.err.contains(QLatin1String("Unknown error")), qPrintable(run.err));
            QVERIFY(!QFile::exists(out));
        }
        QCOMPARE(QDir(full).entryList(QDir::Files | QDir::Hidden), QStringList{QStringLiteral("filler")});
    }

    void hubCacheSnapshotsStayInside()
    {
        // The Hugging Face hub's cache: snapshots/REV/ holds links to ../../blobs/, inside the
        // model's folder of the cache, so its shards are read.
        const QString root = path(QStringLiteral("models--org--tiny"));
        QVERIFY(QDir().mkpath(root + QStringLiteral("/blobs")));
        QVERIFY(QDir().mkpath(root + QStringLiteral("/snapshots/0123abc")));
        QFile blob(root + QStringLiteral("/blobs/4f2e"));
        QVERIFY(blob.open(QIODevice::WriteOnly));
        blob.write(safetensors(R"({"w":{"dtype":"F32","shape":[2,2],"data_offsets":[0,16]}})", 16));
        blob.close();
        QFile index(root + QStringLiteral("/blobs/91aa"));
        QVERIFY(index.open(QIODevice::WriteOnly));
        index.write(QByteArray::fromStdString(json{{"weight_map", {{"w", "model-1.safetensors"}}}}.dump()));
        index.close();
        const QString snapshot = root + QStringLiteral("/snapshots/0123abc");
        QVERIFY(QFile::link(QStringLiteral("../../blobs/4f2e"), snapshot + QStringLiteral("/model-1.safetensors")));
        QVERIFY(QFile::link(QStringLiteral("../../blobs/91aa"), snapshot + QStringLiteral("/model.safetensors.index.json")));
        const Run run = headroom::test::runHeadroom({QStringLiteral("estimate"), path(QStringLiteral("ok.json")),
                                                     QStringLiteral("--model-weights"), snapshot});
        QVERIFY2(run.exitCode == 0, qPrintable(run.err));
        QVERIFY2(run.out.contains(QLatin1String("1 tensors, 4 params")), qPrintable(run.out.left(400)));
    }

    void shardsOutsideSayNothingOfTheTarget()
    {
        // An existing /etc/passwd and a link to nothing read alike: the message reveals neither
        // whether the target exists nor how large it is.
        const auto message = [&](const char *folder) {
            QString err = headroom::test::runHeadroom({QStringLiteral("estimate"), path(QStringLiteral("ok.json")),
                                                       QStringLiteral("--model-weights"), path(QLatin1String(folder))})
                              .err;
            return err.replace(path(QLatin1String(folder)), QStringLiteral("FOLDER"));
        };
        const QString existing = message("ck-passwd"), missing = message("ck-nowhere");
        QVERIFY(existing.contains(QLatin1String("outside the checkpoint folder")));
        QCOMPARE(existing, missing);
    }

    void refusedWithExitTwo_data()
    {
        QTest::addColumn<QStringList>("arguments"); // @ is the temporary folder, @out an empty one
        QTest::addColumn<QString>("fragment");
        const auto row = [](const char *name, const QString &arguments, const char *fragment) {
            QTest::newRow(name) << arguments.split(QLatin1Char(' ')) << QString::fromUtf8(fragment);
        };
        const QString est = QStringLiteral("estimate @/");
        const QString render = QStringLiteral("render --out @out/chart.png @/");
        const QString pdf = QStringLiteral("render --out @out/deck.pdf @/");
        const QString set = QStringLiteral("estimate @/ok.json --set ");
        const QString deepSet = QString::fromStdString(nested(50000));

        // Crash: deep values reaching a message.
        row("deep-name", est + QStringLiteral("deep-name.json"), "name[0][0]");
        row("deep-name-says-why", est + QStringLiteral("deep-name.json"), "nested deeper than 64");
        row("deep-targets", est + QStringLiteral("deep-targets.json"), "train.lora.targets[0]");
        row("deep-set", set + QStringLiteral("name=") + deepSet, "name[0][0]");
        row("deep-set-train", set + QStringLiteral("train=") + deepSet, "--set value nested deeper");
        row("deep-render", render + QStringLiteral("deep-name.json"), "nested deeper");
        row("deep-advise", QStringLiteral("advise @/deep-name.json --gpu t4"), "nested deeper");
        row("deep-lesson", pdf + QStringLiteral("lesson-deep.json"), "steps[0]");
        // Unbounded reads: devices, links to them, model.config pointing at one.
        row("dev-zero", QStringLiteral("estimate /dev/zero"), "is a device");
        row("dev-urandom", QStringLiteral("estimate /dev/urandom"), "is a device");
        row("dev-null", QStringLiteral("estimate /dev/null"), "is a device");
        row("link-to-zero", est + QStringLiteral("zero-link.json"), "is a device");
        row("render-dev-zero", QStringLiteral("render --out @out/chart.png /dev/zero"), "is a device");
        row("advise-dev-zero", QStringLiteral("advise /dev/zero --gpu t4"), "is a device");
        row("config-zero", est + QStringLiteral("config-zero.json"), "model.config");
        // A link from the scenario's folder to /dev/zero leaves the folder: refused before opening.
        row("config-zero-outside", est + QStringLiteral("config-zero.json"), "outside the scenario's folder");
        row("model-config-zero", est + QStringLiteral("ok.json --model-config /dev/zero"), "--model-config");
        row("model-config-zero-device", est + QStringLiteral("ok.json --model-config /dev/zero"), "is a device");
        row("weights-index-zero", est + QStringLiteral("ok.json --model-weights @/ck-zero"), "is a device");
        row("weights-file-zero", est + QStringLiteral("ok.json --model-weights @/zero.safetensors"), "is a device");
        // Hangs: FIFOs with no writer, sockets, folders.
        row("fifo", est + QStringLiteral("fifo.json"), "pipe (FIFO)");
        row("render-fifo", render + QStringLiteral("fifo.json"), "pipe (FIFO)");
        row("config-fifo", est + QStringLiteral("config-fifo.json"), "pipe (FIFO)");
        row("model-config-fifo", est + QStringLiteral("ok.json --model-config @/fifo.json"), "pipe (FIFO)");
        row("weights-shard-fifo", est + QStringLiteral("ok.json --model-weights @/ck-fifo"), "pipe (FIFO)");
        // Training configurations go through the same policy.
        row("train-config-zero", QStringLiteral("estimate --train-config /dev/zero"), "is a device");
        row("train-config-fifo", QStringLiteral("estimate --train-config @/fifo.json"), "pipe (FIFO)");
        row("train-config-folder", QStringLiteral("estimate --train-config @/folder.json"), "is a folder");
        row("socket", est + QStringLiteral("socket.json"), "is a socket");
        row("folder", est + QStringLiteral("folder.json"), "is a folder");
        row("config-folder", est + QStringLiteral("config-folder.json"), "is a folder");
        row("missing", est + QStringLiteral("absent.json"), "cannot open");
        row("config-missing", est + QStringLiteral("config-missing.json"), "model.config");
        // Sizes.
        row("fifty-megabytes", est + QStringLiteral("big.json"), "4,194,304-byte limit");
        row("just-over-the-limit", est + QStringLiteral("just-over.json"), "4,194,304-byte limit");
        row("render-fifty-megabytes", render + QStringLiteral("big.json"), "byte limit");
        row("config-five-megabytes", est + QStringLiteral("config-big.json"), "model.config");
        row("model-config-five-megabytes", est + QStringLiteral("ok.json --model-config @/config-big-file.json"), "byte limit");
        row("config-deep", est + QStringLiteral("config-deep.json"), "rope_scaling[0]");
        // Unbounded work: steps, image pixels, --step.
        row("lesson-2000-steps", pdf + QStringLiteral("lesson-2000.json"), "steps: at most 200 steps");
        row("lesson-201-steps", pdf + QStringLiteral("lesson-201.json"), "steps: at most 200 steps");
        row("lesson-caption", pdf + QStringLiteral("lesson-caption.json"), "steps[0].caption: at most 4000 bytes");
        row("lesson-title", pdf + QStringLiteral("lesson-title.json"), "title: at most 1000 bytes");
        row("step-100000", render + QStringLiteral("lesson-2.json --step 100000"), "--step");
        row("step-zero", render + QStringLiteral("lesson-2.json --step 0"), "--step");
        row("step-fraction", render + QStringLiteral("lesson-2.json --step 1.5"), "--step");
        row("step-past-the-end", render + QStringLiteral("lesson-2.json --step 3"), "the lesson has 2 steps");
        row("step-on-a-scenario", render + QStringLiteral("ok.json --step 1"), "--step: only lessons");
        row("image-16384-scale-2", render + QStringLiteral("ok.json --width 16384 --height 16384 --scale 2"), "--width, --height, --scale");
        row("image-pixels", render + QStringLiteral("ok.json --width 8192 --height 8192 --scale 1.1"), "9011 x 9011 = 81,198,121 pixels; at most 67,108,864");
        row("image-one-row-over", render + QStringLiteral("ok.json --width 8192 --height 8193 --scale 1"), "8192 x 8193 = 67,117,056 pixels; at most 67,108,864");
        row("width-too-large", render + QStringLiteral("ok.json --width 20000"), "--width");
        row("height-too-small", render + QStringLiteral("ok.json --height 15"), "--height");
        row("scale-zero", render + QStringLiteral("ok.json --scale 0"), "--scale");
        row("scale-nan", render + QStringLiteral("ok.json --scale nan"), "--scale");
        row("width-infinite", render + QStringLiteral("ok.json --width inf"), "--width");
        // Wrong number: what estimate refuses, render and handouts refuse too.
        row("estimate-overflow", est + QStringLiteral("overflow.json"), "exceeds 2^64");
        row("render-overflow", render + QStringLiteral("overflow.json"), "exceeds 2^64");
        row("render-overflow-svg", QStringLiteral("render --out @out/chart.svg @/overflow.json"), "exceeds 2^64");
        row("render-overflowing-pin", render + QStringLiteral("comparison-overflow.json"), "pins[0]: activations exceeds 2^64");
        row("handout-overflow", pdf + QStringLiteral("lesson-overflow.json"), "steps[0]: activations exceeds 2^64");
        row("handout-step-overflow", render + QStringLiteral("lesson-overflow-2.json --step 2"), "steps[1]: activations");
        row("advise-overflow", QStringLiteral("advise @/overflow.json --gpu t4"), "exceeds 2^64");
        row("fragmentation-8-large", est + QStringLiteral("fragmentation-8-large.json"), "peak exceeds 2^63 bytes");
        row("render-fragmentation-8-large", render + QStringLiteral("fragmentation-8-large.json"), "peak exceeds 2^63 bytes");
        row("set-overflow", set + QStringLiteral("train.micro_batch=1048576 --set train.seq_len=16777216 --set kernels.attention=eager"), "exceeds 2^64");
        // Silent acceptance: duplicate keys and tensor names.
        row("dup-version", est + QStringLiteral("dup-version.json"), "version: appears twice");
        row("dup-first-invalid", est + QStringLiteral("dup-first-invalid.json"), "train.micro_batch: appears twice");
        row("dup-model", est + QStringLiteral("dup-model.json"), "model.layers: appears twice");
        row("dup-pin", render + QStringLiteral("dup-pin.json"), "pins[0].train.seq_len: appears twice");
        row("dup-lesson-set", pdf + QStringLiteral("dup-lesson-set.json"), "steps[1].set.train.micro_batch: appears twice");
        row("dup-set-value", set + QStringLiteral("train={\"method\":\"lora\",\"method\":\"full\"}"), "train.method: --set value appears twice");
        row("dup-config", est + QStringLiteral("config-dup.json"), "num_hidden_layers: appears twice");
        row("dup-model-config", est + QStringLiteral("ok.json --model-config @/config-dup-file.json"), "num_hidden_layers: appears twice");
        row("dup-tensor", est + QStringLiteral("ok.json --model-weights @/dup-tensor.safetensors"), "the header names w twice");
        row("dup-index", est + QStringLiteral("ok.json --model-weights @/dup-index.json"), "the index names weight_map.w twice");
        // Escapes: keys and values from the file are quoted, never printed raw.
        row("escape-in-key", est + QStringLiteral("escape-key.json"), "\\x1b[31mred");
        row("escape-in-preset", est + QStringLiteral("escape-preset.json"), "unknown model \"\\x1b]0;owned\\x07\"");
        row("escape-in-gpu", est + QStringLiteral("escape-gpu.json"), "unknown GPU \\u009b2J\\u202e");
        row("bidi-in-key", est + QStringLiteral("bidi-key.json"), "micro\\u202ebatch");
        row("escape-in-model-type", est + QStringLiteral("ok.json --model-config @/config-type.json"), "\\x1b[2Jt5");
        row("escape-in-tensor", est + QStringLiteral("ok.json --model-weights @/escape-tensor.safetensors"), "\\x1b[31mw");
        row("escape-in-set", set + QString::fromUtf8("\x1b[31m=1"), "\\x1b[31m\": unknown key");
        // Messages: short quotes, the right key.
        row("array-as-name", est + QStringLiteral("array-name.json"), "name: must be a string (got [0,1,2,");
        row("long-name", est + QStringLiteral("long-name.json"), "name: at most 1000 bytes");
        row("config-lacks", est + QStringLiteral("ok.json --model-config @/config-lacks.json"), "num_hidden_layers");
        row("config-not-json", est + QStringLiteral("config-not-json.json"), "not valid JSON");
        row("huge-header", est + QStringLiteral("ok.json --model-weights @/huge-header.safetensors"), "100,000,000-byte limit");
        row("deep-header", est + QStringLiteral("ok.json --model-weights @/deep-header.safetensors"), "nested deeper");
        row("truncated-shard", est + QStringLiteral("ok.json --model-weights @/truncated.safetensors"), "truncated");
        row("bad-dtype", est + QStringLiteral("ok.json --model-weights @/bad-dtype.safetensors"), "unknown dtype \"F7\"");
        row("many-shards", est + QStringLiteral("ok.json --model-weights @/many-shards.index.json"), "1,025 shard files");
        row("shard-outside", est + QStringLiteral("ok.json --model-weights @/escape-index.json"), "next to the index");
        row("shard-missing", est + QStringLiteral("ok.json --model-weights @/index-missing-shard.json"), "missing shard absent.safetensors");
        row("shard-name-100000-chars", est + QStringLiteral("ok.json --model-weights @/index-long-shard.json"), "missing shard sssss");
        // Structure.
        row("nine-pins", render + QStringLiteral("nine-pins.json"), "pins: at most 8");
        row("pins-not-a-list", render + QStringLiteral("pins-object.json"), "pins: must be a list");
        row("comparison-unknown-key", render + QStringLiteral("comparison-unknown.json"), "extra: unknown key");
        row("comparison-version", render + QStringLiteral("comparison-v2.json"), "version");
        row("comparison-no-current", render + QStringLiteral("comparison-no-current.json"), "current");
        row("estimate-a-comparison", est + QStringLiteral("nine-pins.json"), "format");
        row("lesson-unknown-key", pdf + QStringLiteral("lesson-unknown.json"), "notes: unknown key");
        row("empty-file", est + QStringLiteral("empty.json"), "not valid JSON");
        row("trailing-text", est + QStringLiteral("trailing.json"), "not valid JSON");
        row("comment", est + QStringLiteral("comment.json"), "not valid JSON");
        row("utf16", est + QStringLiteral("utf16.json"), "not valid JSON");
        row("binary", est + QStringLiteral("binary.json"), "not valid JSON");
        row("number-overflow", est + QStringLiteral("number-overflow.json"), "train.micro_batch: \"1e400\" is too large for a number");
        row("top-level-array", est + QStringLiteral("top-array.json"), "not a JSON object");
        row("top-level-null", render + QStringLiteral("top-null.json"), "not a JSON object");
        row("no-format", est + QStringLiteral("no-format.json"), "format");
        // Values and counts.
        row("gpus-17", est + QStringLiteral("gpus-17.json"), "gpus: must be a list of up to 16");
        row("batch-2^64", est + QStringLiteral("batch-2-64.json"), "train.micro_batch");
        row("batch-negative", est + QStringLiteral("batch-negative.json"), "train.micro_batch");
        row("batch-fraction", est + QStringLiteral("batch-fraction.json"), "train.micro_batch");
        row("params-1e16", est + QStringLiteral("params-1e16.json"), "model.params");
        row("fragmentation-11", est + QStringLiteral("fragmentation-11.json"), "overhead.fragmentation");
        row("cuda-context-negative", est + QStringLiteral("context-mib-negative.json"), "overhead.cuda_context_mib");
        row("kv-heads-divide", est + QStringLiteral("kv-heads-divide.json"), "kv_heads");
        row("unknown-enum", est + QStringLiteral("unknown-enum.json"), "kernels.attention");
        row("offload-params-strategy", est + QStringLiteral("offload-params.json"), "parallel.offload_params");
        row("pipeline-past-layers", est + QStringLiteral("pipeline-layers.json"), "parallel.pipeline");
        // --set itself.
        row("set-no-equals", set + QStringLiteral("train.micro_batch"), "--set needs key.path=value");
        row("set-empty-value", set + QStringLiteral("train.micro_batch="), "--set needs a value");
        row("set-empty-part", set + QStringLiteral("train..micro_batch=2"), "empty part");
        row("set-into-a-value", set + QStringLiteral("name.x=1"), "name: must be a string (got {\"x\":1})");
        row("set-into-a-number", set + QStringLiteral("train.micro_batch=2 --set train.micro_batch.x=1"), "train.micro_batch: is not an object");
        row("set-long-path", set + QString(300, QLatin1Char('k')) + QStringLiteral("=1"), "--set key path is longer than 200");
        row("set-number-overflow", set + QStringLiteral("train.micro_batch=1e400"), "train.micro_batch");
        row("set-nan", set + QStringLiteral("overhead.fragmentation=nan"), "overhead.fragmentation");
        row("set-huge-integer", set + QStringLiteral("train.seq_len=99999999999999999999999"), "train.seq_len");
        // validate's measurement cases go through the same reader.
        row("validate-duplicate", QStringLiteral("validate @/cases-dup"), "format: appears twice");
        row("validate-too-large", QStringLiteral("validate @/cases-big"), "byte limit");
        row("validate-deep", QStringLiteral("validate @/cases-deep"), "nested deeper");

        // Issue 29: the training-config reader (YAML as PyYAML reads it, JSON as Python's json).
        const QString tc = QStringLiteral("estimate --train-config @/");
        row("yaml-billion-laughs", tc + QStringLiteral("laughs.yml"), "200,000 values with its aliases expanded");
        row("yaml-4000-aliases-of-a-list", tc + QStringLiteral("aliases.yml"), "200,000 values with its aliases expanded");
        row("yaml-deep", tc + QStringLiteral("deep.yml"), "nested deeper than 64 levels");
        row("yaml-duplicate-key", tc + QStringLiteral("dup.yml"), "micro_batch_size: line 3: appears twice");
        row("yaml-second-document", tc + QStringLiteral("second-doc.yml"), "line 3: a second YAML document");
        row("yaml-merge-of-a-number", tc + QStringLiteral("merge-scalar.yml"), "run.<<: line 3: a merge (<<) takes a mapping");
        row("yaml-float-too-large", tc + QStringLiteral("huge-float.yml"), "micro_batch_size: line 2: \"1.0e+999\" is too large");
        row("yaml-int-past-64-bits", tc + QStringLiteral("huge-int.yml"), "micro_batch_size: line 2: \"99999999999999999999\" is too large");
        row("yaml-e-notation-is-text", tc + QStringLiteral("e-notation.yml"), "lora_dropout: must be a number");
        row("yaml-4mb-model-name", tc + QStringLiteral("long-model.yml"), "names the model \"mmmm");
        row("json-duplicate-key", tc + QStringLiteral("ds-dup.json"), "train_micro_batch_size_per_gpu: appears twice");
        row("json-trailing-text", tc + QStringLiteral("ds-trailing.json"), "ds-trailing.json: not valid JSON");
        row("json-1e999", tc + QStringLiteral("ds-1e999.json"), "train_micro_batch_size_per_gpu: \"1e999\" is too large");
        row("json-int-past-64-bits", tc + QStringLiteral("ds-huge-int.json"), "is too large (a whole number must fit in 64 bits)");
        row("train-config-nine-files", tc + QStringLiteral("dup.yml") + QStringLiteral(" --train-config @/dup.yml").repeated(8),
            "at most 8 training configuration files (got 9)");
        // A file a training config names stays in the config's folders, this folder or the home.
        row("train-config-names-etc-passwd", tc + QStringLiteral("names-passwd.yml"),
            "deepspeed: \"/etc/passwd\" is outside the config's folder");
        row("train-config-names-up-to-root", tc + QStringLiteral("names-shadow.yml"), "is outside the config's folder");
        row("train-config-two-of-a-kind", tc + QStringLiteral("axolotl-1.yml --train-config @/axolotl-4.yml"),
            "axolotl-4.yml: a second Axolotl config in one run");
        row("train-arg-deep-path", tc + QStringLiteral("litgpt.yaml --train-arg ") + QStringLiteral("a.").repeated(19000) + QStringLiteral("a=1"),
            "--train-arg key path is longer than 200 characters");
        row("train-arg-empty-part", tc + QStringLiteral("litgpt.yaml --train-arg train..micro_batch_size=2"), "--train-arg key path has an empty part");
        row("train-arg-no-value", tc + QStringLiteral("litgpt.yaml --train-arg ") + QString(5000, QLatin1Char('x')), "--train-arg: an override needs key=value (got \"xxxx");
        row("train-format-long", tc + QStringLiteral("dup.yml --train-format ") + QString(5000, QLatin1Char('f')), "--train-format: must be one of");
        row("litgpt-global-batch-below-micro", tc + QStringLiteral("litgpt.yaml --train-arg=--devices=4"),
            "train.global_batch_size: 8 is smaller than micro_batch_size x devices x num_nodes (16)");
        row("number-1e999", est + QStringLiteral("number-1e999.json"), "train.micro_batch: \"1e999\" is too large");
        row("number-past-64-bits", est + QStringLiteral("number-past-64-bits.json"), "train.micro_batch: \"99999999999999999999\" is too large");
        row("set-1e999", set + QStringLiteral("train.micro_batch=1e999"), "train.micro_batch: --set value \"1e999\" is too large");
        // Tensor parallelism the engines and frameworks cannot split.
        row("tensor-65536", est + QStringLiteral("tensor-65536.json"), "parallel.tensor: 65536 must divide model.heads (32)");
        row("tensor-3", est + QStringLiteral("tensor-3.json"), "parallel.tensor: 3 must divide model.heads (32)");
        row("tensor-16-kv-heads-train", est + QStringLiteral("tensor-kv-train.json"), "parallel.tensor: 16 must divide model.kv_heads (8)");
        row("frontier-tensor-3", QStringLiteral("frontier @/vllm.json --tensor 1,3"), "--tensor: 3 must divide model.heads (32)");
        row("trainable-over-total", est + QStringLiteral("trainable-over-total.json"), "model.params: 1,000 parameters");
        // Paths: model.config and safetensors shards stay where they belong, and say nothing else.
        row("config-etc-shadow", est + QStringLiteral("config-shadow.json"), "model.config: \"/etc/shadow\" is outside the scenario's folder");
        row("config-dotdot", est + QStringLiteral("config-dotdot.json"), "is outside the scenario's folder and your home folder");
        row("config-missing-outside", est + QStringLiteral("config-missing-outside.json"), "is outside the scenario's folder");
        row("shard-through-link-to-root", est + QStringLiteral("ok.json --model-weights @/ck-link"), "shard \"link/etc/passwd\" is outside the checkpoint folder");
        row("shard-link-to-passwd", est + QStringLiteral("ok.json --model-weights @/ck-passwd"), "shard \"model-1.safetensors\" is outside the checkpoint folder");
        const QString mc = est + QStringLiteral("ok.json --model-config @/");
        row("config-quant-method-number", mc + QStringLiteral("q-method-5.json"), "quantization_config.quant_method must be a string (got 5)");
        row("config-bits-text", mc + QStringLiteral("q-bits-text.json"), "quantization_config.bits must be a whole number from 1 to 64 (got \"4\")");
        row("config-bits-0", mc + QStringLiteral("q-bits-0.json"), "quantization_config.bits must be a whole number from 1 to 64 (got 0)");
        row("config-bits-65", mc + QStringLiteral("q-bits-65.json"), "quantization_config.bits must be a whole number from 1 to 64 (got 65)");
        row("config-bits-5", mc + QStringLiteral("q-bits-5.json"), "quantization_config.bits must be 2, 3, 4 or 8 for gptq (got 5)");
        row("config-load-in-4bit-yes", mc + QStringLiteral("q-bnb-yes.json"), "quantization_config.load_in_4bit must be true or false (got \"yes\")");
        row("config-model-type-beside-text-config", mc + QStringLiteral("type-beside-text.json"), "type-beside-text.json: config.json: model_type must be a string (got 5)");
        row("config-text-config-model-type", mc + QStringLiteral("text-type-number.json"), "text_config.model_type must be a string (got 7)");
        // Issue 29's hostile pass over the newer readers (the list is in the issue's closing note).
        row("probe-past-the-device", QStringLiteral("compare @/probe-past-device.json @/ok.json"),
            "readings[0].peak_allocated_bytes: 18446744073709551615 bytes is more than the device's total_bytes");
        row("validate-case-links-out", QStringLiteral("validate @/cases-link"), "case.json: leads outside the folder of cases");
        row("validate-kv-past-2^53", QStringLiteral("validate @/cases-kv-2-64"), "measured.kv_cache_bytes: must be at most 2^53");
        row("validate-kv-bytes-disagree", QStringLiteral("validate @/cases-kv-disagree"), "is not the case's kv_cache_gib 54.26");
        row("script-open-brace", tc + QStringLiteral("open-brace.sh"), "NPROC_PER_NODE: must be a number of processes");
        row("fit-format-5000", QStringLiteral("fits --gpu rtx-4090 --format ") + QString(5000, QLatin1Char('f')), "--format: must be text");
        row("estimate-format-5000", est + QStringLiteral("ok.json --format ") + QString(5000, QLatin1Char('f')), "(got ffffffff");
        row("render-theme-5000", render + QStringLiteral("ok.json --theme ") + QString(5000, QLatin1Char('t')), "--theme: must be light or dark");
        row("unit-5000", est + QStringLiteral("ok.json --unit ") + QString(5000, QLatin1Char('u')), "--unit: must be GB or GiB");
        row("shard-link-to-nowhere", est + QStringLiteral("ok.json --model-weights @/ck-nowhere"), "shard \"model-1.safetensors\" is outside the checkpoint folder");
    }
    void refusedWithExitTwo()
    {
        QFETCH(QStringList, arguments);
        QFETCH(QString, fragment);
        const QString out = m_dir.filePath(QStringLiteral("out-") + QString::fromLatin1(QTest::currentDataTag()));
        QVERIFY(QDir().mkpath(out));
        for (QString &argument : arguments) {
            argument.replace(QStringLiteral("@out"), out);
            if (argument.startsWith(QLatin1Char('@')))
                argument.replace(0, 1, m_dir.path());
        }
        // No time limit here: ctest's TIMEOUT for this test catches a hang.
        const Run run = headroom::test::runHeadroom(arguments, -1);
        QCOMPARE(run.exitCode, 2);
        QVERIFY2(run.err.contains(fragment), qPrintable(run.err.left(2000)));
        // One line, short, and nothing a terminal would act on.
        QCOMPARE(run.err.trimmed().count(QLatin1Char('\n')), 0);
        QVERIFY2(run.err.size() < 1500, qPrintable(run.err.left(2000)));
        for (const QChar c : run.err.trimmed())
            QVERIFY2(c.unicode() >= 0x20 && c.unicode() != 0x7F && !(c.unicode() >= 0x80 && c.unicode() <= 0x9F) &&
                         !(c.unicode() >= 0x202A && c.unicode() <= 0x202E),
                     qPrintable(QStringLiteral("control character U+%1").arg(c.unicode(), 4, 16)));
        // Never a library's words.
        QVERIFY2(!run.err.contains(QLatin1String("std::")) && !run.err.contains(QLatin1String("json.exception")),
                 qPrintable(run.err));
        QVERIFY(run.out.isEmpty());
        // No chart, no half-written file.
        QCOMPARE(QDir(out).entryList(QDir::AllEntries | QDir::Hidden | QDir::System | QDir::NoDotAndDotDot),
                 QStringList());
    }
};

QTEST_GUILESS_MAIN(TestMalformed)
#include "tst_malformed.moc"
