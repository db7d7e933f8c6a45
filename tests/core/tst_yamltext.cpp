// SPDX-License-Identifier: GPL-3.0-or-later
// YAML as the frameworks read it (io/yamltext.h): PyYAML's YAML 1.1 scalars and merge keys,
// checked against PyYAML itself (tests/pyyaml_reference.py, python3-yaml) and against the rules
// written out by hand; and the policy: aliases expanded under a budget, depth, one document,
// keys given once, numbers too large.
#include "io/yamltext.h"

#include <QProcess>
#include <QtTest>
#include <cmath>
#include <nlohmann/json.hpp>
#include <string>

using namespace headroom;
using nlohmann::json;

namespace {

/// The error parseYaml throws, or a default one when it reads.
InputError yamlError(const std::string &text, const YamlLimits &limits = {})
{
    try {
        parseYaml(text, limits);
    } catch (const InputError &error) {
        return error;
    }
    return InputError("(parsed)", "(parsed)");
}

/// A value as pyyaml_reference.py writes it: scalars typed, mappings and lists as they are.
json typed(const json &value)
{
    if (value.is_object()) {
        json out = json::object();
        for (const auto &[key, item] : value.items())
            out[key] = typed(item);
        return out;
    }
    if (value.is_array()) {
        json out = json::array();
        for (const json &item : value)
            out.push_back(typed(item));
        return out;
    }
    if (value.is_boolean())
        return {"bool", value.get<bool>()};
    if (value.is_null())
        return {"null"};
    if (value.is_number_integer())
        return {"int", value.dump()};
    if (value.is_number_float())
        return {"float", value.dump()};
    return {"str", value.get<std::string>()};
}

/// Two typed values alike: floats compared as numbers (Python's repr and ours print them
/// differently), dates as the text of the file (kept as text here), the rest exactly.
bool alike(const json &ours, const json &theirs, const std::string &source)
{
    if (ours.is_object() && theirs.is_object()) {
        if (ours.size() != theirs.size())
            return false;
        for (const auto &[key, item] : ours.items())
            if (!theirs.contains(key) || !alike(item, theirs.at(key), source))
                return false;
        return true;
    }
    if (ours.is_array() && theirs.is_array() && !ours.empty() && !ours[0].is_string()) {
        if (ours.size() != theirs.size())
            return false;
        for (std::size_t i = 0; i < ours.size(); ++i)
            if (!alike(ours[i], theirs[i], source))
                return false;
        return true;
    }
    if (theirs.is_array() && !theirs.empty() && theirs[0] == "date")
        return ours == json{"str", source};
    if (theirs.is_array() && !theirs.empty() && theirs[0] == "float" && ours.size() == 2 && ours[0] == "float")
        return std::stod(ours[1].get<std::string>()) == std::stod(theirs[1].get<std::string>());
    return ours == theirs;
}

/// Plain scalars at the edges of PyYAML's resolvers (resolver.py), each read as `v: SCALAR`.
const char *const kScalars[] = {
    // int: octal, binary, hex, sexagesimal, underscores, signs, 64 bits
    "010", "-010", "0_7", "00", "08", "0o10", "0b101", "-0b11", "0x1F", "+0x1f", "0xFF_FF", "1_000",
    "1__2", "1_", "0", "-0", "+1", "1:30", "-1:30", "190:20:30", "1:60", "1:5:9",
    "9223372036854775807", "-9223372036854775808", "9223372036854775808", "18446744073709551615",
    // float: a dot is needed; an exponent needs its sign
    "1.5", "1.", ".5", "-.5", "+.5", "1_000.5", "1.0e+5", "1.0E-3", "1.0e5", "1e5", "2e-5",
    "1:30.5", "12e3", "0.1", "1.0e-999", "-1.5",
    // bool and null
    "yes", "Yes", "YES", "yEs", "no", "NO", "on", "On", "off", "OFF", "y", "n", "Y", "true",
    "True", "TRUE", "tRue", "false", "False", "null", "Null", "NULL", "nUll", "~", "",
    // text that looks like something else
    "1e999", "0x", "0b", "+", "-", ".", "..", "1.2.3", "1,000", "$1", "0x1G", "1:3a",
    // timestamps (dates are kept as their text here)
    "2001-12-14", "2001-12-14t21:59:43.10-05:00", "2001-12-14 21:59:43.10", "2001-1-1 1:02:03",
};

} // namespace

class TestYamlText : public QObject
{
    Q_OBJECT
private slots:
    void scalarsAsPyYamlReadsThem_data()
    {
        // Written out from PyYAML's resolver.py and constructor.py (SafeLoader, YAML 1.1).
        QTest::addColumn<QByteArray>("yaml");
        QTest::addColumn<QByteArray>("expected"); // JSON of the value of key v
        const auto row = [](const char *name, const char *yaml, const char *expected) {
            QTest::newRow(name) << QByteArray(yaml) << QByteArray(expected);
        };
        row("octal-010-is-8", "v: 010", "8");
        row("octal-underscore", "v: 0_17", "15");
        row("08-is-text", "v: 08", "\"08\"");
        row("0o10-is-text", "v: 0o10", "\"0o10\"");
        row("binary", "v: 0b1010", "10");
        row("hex", "v: 0x1F", "31");
        row("negative-hex", "v: -0x10", "-16");
        row("sexagesimal", "v: 1:30", "90");
        row("sexagesimal-three", "v: 190:20:30", "685230");
        row("sexagesimal-float", "v: 1:30.5", "90.5");
        row("underscores", "v: 1_000_000", "1000000");
        row("yes", "v: yes", "true");
        row("No", "v: No", "false");
        row("on", "v: on", "true");
        row("OFF", "v: OFF", "false");
        row("y-is-text", "v: y", "\"y\"");
        row("mixed-case-is-text", "v: tRue", "\"tRue\"");
        row("tilde", "v: ~", "null");
        row("empty", "v:", "null");
        row("Null", "v: Null", "null");
        row("1e5-is-text", "v: 1e5", "\"1e5\"");
        row("2e-5-is-text", "v: 2e-5", "\"2e-5\"");
        row("exponent-needs-sign", "v: 1.0e5", "\"1.0e5\"");
        row("exponent-with-sign", "v: 1.0e+5", "100000.0");
        row("dot-five", "v: .5", "0.5");
        row("minus-dot-five-is-text", "v: -.5", "\"-.5\"");
        row("one-dot", "v: 1.", "1.0");
        row("inf", "v: .inf", "\".inf\"");
        row("minus-inf", "v: -.Inf", "\"-.inf\"");
        row("nan", "v: .NaN", "\".nan\"");
        row("underflow-is-zero", "v: 1.0e-999", "0.0");
        row("quoted-stays-text", "v: '010'", "\"010\"");
        row("double-quoted-yes", "v: \"yes\"", "\"yes\"");
        row("block-stays-text", "v: |\n  10\n", "\"10\\n\"");
        row("str-tag", "v: !!str 010", "\"010\"");
        row("int-tag-on-quoted", "v: !!int '010'", "8");
        row("float-tag-takes-1e5", "v: !!float 1e5", "100000.0");
        row("bool-tag", "v: !!bool YES", "true");
        row("null-tag", "v: !!null x", "null");
        row("date-as-text", "v: 2001-12-14", "\"2001-12-14\"");
        row("largest-int64", "v: 9223372036854775807", "9223372036854775807");
        row("past-int64-fits-64-bits", "v: 18446744073709551615", "18446744073709551615");
        row("smallest-int64", "v: -9223372036854775808", "-9223372036854775808");
        row("key-010-is-8", "010: x", "null");
        row("equals-as-key", "=: 1", "null");
    }
    void scalarsAsPyYamlReadsThem()
    {
        QFETCH(QByteArray, yaml);
        QFETCH(QByteArray, expected);
        const json doc = parseYaml(yaml.toStdString());
        QVERIFY(doc.is_object());
        if (doc.contains("v")) {
            const json want = json::parse(expected.toStdString());
            // Same value and kind (nlohmann tells signed from unsigned whole numbers: both are ints).
            const bool sameKind = doc["v"].is_number_integer() == want.is_number_integer() &&
                                  doc["v"].is_number_float() == want.is_number_float() &&
                                  doc["v"].type_name() == want.type_name();
            QVERIFY2(doc["v"] == want && sameKind, doc.dump().c_str());
        } else {
            // The keys rows: the key as Python prints it.
            QCOMPARE(doc.size(), std::size_t(1));
            const std::string key = doc.begin().key();
            QVERIFY2(key == "8" || key == "=", key.c_str());
        }
    }

    void keysAsPythonNamesThem()
    {
        const json doc = parseYaml("010: a\nyes: b\n1.5: c\n0x10: d\nname: e\n");
        QCOMPARE(doc, json({{"8", "a"}, {"True", "b"}, {"1.5", "c"}, {"16", "d"}, {"name", "e"}}));
    }

    void mergeKeys_data()
    {
        QTest::addColumn<QByteArray>("yaml");
        QTest::addColumn<QByteArray>("expected");
        const auto row = [](const char *name, const char *yaml, const char *expected) {
            QTest::newRow(name) << QByteArray(yaml) << QByteArray(expected);
        };
        // An Axolotl config sharing its settings through an anchor (the issue's case: the
        // merged sequence_len and micro_batch_size must not be lost).
        row("axolotl-base", "base: &base\n  sequence_len: 4096\n  micro_batch_size: 2\nrun:\n  <<: *base\n",
            R"({"base":{"sequence_len":4096,"micro_batch_size":2},"run":{"sequence_len":4096,"micro_batch_size":2}})");
        row("own-key-wins", "a: &a {x: 1, y: 2}\nb:\n  x: 9\n  <<: *a\n",
            R"({"a":{"x":1,"y":2},"b":{"x":9,"y":2}})");
        row("earlier-of-a-list-wins", "a: &a {x: 1}\nb: &b {x: 2, y: 2}\nc:\n  <<: [*a, *b]\n",
            R"({"a":{"x":1},"b":{"x":2,"y":2},"c":{"x":1,"y":2}})");
        row("inline-mapping", "c:\n  <<: {x: 1}\n  y: 2\n", R"({"c":{"x":1,"y":2}})");
        row("nested-merge", "a: &a {x: 1}\nb: &b {<<: *a, y: 2}\nc: {<<: *b, z: 3}\n",
            R"({"a":{"x":1},"b":{"x":1,"y":2},"c":{"x":1,"y":2,"z":3}})");
        row("quoted-is-a-key", "c: {'<<': 1}\n", R"({"c":{"<<":1}})");
    }
    void mergeKeys()
    {
        QFETCH(QByteArray, yaml);
        QFETCH(QByteArray, expected);
        QCOMPARE(parseYaml(yaml.toStdString()), json::parse(expected.toStdString()));
    }

    void sameAsPyYaml()
    {
        // The independent reader: PyYAML itself, over the scalar table and the merge rows.
        QStringList documents;
        json texts = json::array();
        for (const char *scalar : kScalars)
            texts.push_back(std::string("v: ") + scalar);
        for (const char *text : {"a: &a {x: 1, y: 2}\nb:\n  x: 9\n  <<: *a\n",
                                 "a: &a {x: 1}\nb: &b {x: 2, y: 2}\nc:\n  <<: [*a, *b]\n",
                                 "a: &a {x: 1}\nb: &b {<<: *a, y: 2}\nc: {<<: *b, z: 3}\n",
                                 "010: a\nyes: b\n0x10: d\n", "v: !!int '010'\nw: !!float 1e5\n",
                                 "v: [1, 010, yes, ~, '1']\n", "<<: 1\n", "v: =\n", "v: <<\n",
                                 "a: 1\n---\nb: 2\n", "v: !foo x\n", "v: 0x_\n"})
            texts.push_back(text);
        QProcess python;
        python.start(QStringLiteral("python3"),
                     {QStringLiteral(HEADROOM_SOURCE_DIR "/tests/pyyaml_reference.py")});
        if (!python.waitForStarted())
            QSKIP("python3 is not installed (Debian: python3-yaml)");
        python.write(QByteArray::fromStdString(texts.dump()));
        python.closeWriteChannel();
        QVERIFY(python.waitForFinished(60000));
        if (python.exitCode() != 0 && python.readAllStandardError().contains("No module named 'yaml'"))
            QSKIP("PyYAML is not installed (Debian: python3-yaml)");
        QCOMPARE(python.exitCode(), 0);
        const json theirs = json::parse(python.readAllStandardOutput().toStdString());
        QCOMPARE(theirs.size(), texts.size());
        int compared = 0;
        for (std::size_t i = 0; i < texts.size(); ++i) {
            const std::string text = texts[i].get<std::string>();
            const std::string scalar = text.starts_with("v: ") ? text.substr(3) : text;
            json ours;
            bool refused = false;
            try {
                ours = typed(parseYaml(text));
            } catch (const InputError &) {
                refused = true;
            }
            if (theirs[i].contains("error")) {
                // Where PyYAML refuses, so do we.
                QVERIFY2(refused, ("PyYAML refuses " + text + " but it reads as " + ours.dump()).c_str());
                ++compared;
                continue;
            }
            const json &value = theirs[i]["ok"];
            // .inf/.nan are numbers to Python and the text ".inf" here (JSON has no such number).
            if (value.dump().find("\"inf\"") != std::string::npos || value.dump().find("\"nan\"") != std::string::npos)
                continue;
            if (refused) {
                // We refuse only what we cannot hold: a whole number past 64 bits.
                QVERIFY2(scalar.find_first_not_of("0123456789") == std::string::npos && scalar.size() >= 19,
                         ("refused, but PyYAML reads " + text).c_str());
                ++compared;
                continue;
            }
            QVERIFY2(alike(ours, value, scalar),
                     (text + ": ours " + ours.dump() + ", PyYAML " + value.dump()).c_str());
            ++compared;
        }
        QVERIFY(compared > 90);
    }

    void refusedNamingTheKey_data()
    {
        QTest::addColumn<QByteArray>("yaml");
        QTest::addColumn<QByteArray>("key");
        QTest::addColumn<QByteArray>("fragment");
        const auto row = [](const char *name, const QByteArray &yaml, const char *key, const char *fragment) {
            QTest::newRow(name) << yaml << QByteArray(key) << QByteArray(fragment);
        };
        row("duplicate-key", "train:\n  micro_batch_size: 1\n  micro_batch_size: 4\n",
            "train.micro_batch_size", "line 3: appears twice");
        row("duplicate-after-resolution", "010: a\n8: b\n", "8", "appears twice");
        row("second-document", "a: 1\n---\nb: 2\n", "", "line 2: a second YAML document");
        row("empty-second-document", "a: 1\n---\n", "", "a second YAML document");
        row("merge-of-a-scalar", "a:\n  <<: 1\n", "a.<<", "a merge (<<) takes a mapping");
        row("merge-of-a-list-of-scalars", "a:\n  <<: [1, 2]\n", "a.<<", "a merge (<<) takes a mapping");
        row("equals-value", "a: =\n", "a", "\"=\" as a value");
        row("merge-as-value", "a: <<\n", "a", "may only be a key");
        row("unknown-tag", "a: !foo x\n", "a", "the tag \"!foo\" is not read here");
        row("python-tag", "a: !!python/object:os.system x\n", "a", "is not read here (only str, int");
        row("set-tag", "a: !!set {x: null}\n", "a", "is not read here (only plain lists and mappings)");
        row("int-tag-on-text", "a: !!int abc\n", "a", "is not a whole number");
        row("hex-without-digits", "a: 0x_\n", "a", "is not a whole number PyYAML can read");
        row("past-64-bits", "a: 99999999999999999999\n", "a", "is too large (a whole number must fit in 64 bits)");
        row("float-too-large", "train:\n  lr: 1.0e+999\n", "train.lr", "line 2: \"1.0e+999\" is too large");
        row("list-item-path", "a: [1, 2, !!int x]\n", "a[2]", "is not a whole number");
        row("null-key", "~: 1\n", "", "a key must be a name");
        row("list-key", "? [1]\n: 2\n", "", "a key must be a name");
        row("self-reference", "a: &x [*x]\n", "a", "a value that contains itself");
        row("undefined-alias", "a: *x\n", "", "not valid YAML");
        row("syntax", "a: [1, 2\n", "", "not valid YAML: line");
        row("escape-a-surrogate", "a: \"\\ud800\"\n", "", "not valid YAML: line 1");
        row("sixty-five-levels", QByteArray("a: ") + QByteArray(65, '[') + QByteArray(65, ']'), "a[0]",
            "nested deeper than 64 levels");
        row("five-thousand-levels", QByteArray("a: ") + QByteArray(5000, '[') + QByteArray(5000, ']'), "a[0]",
            "nested deeper than 64 levels");
    }
    void refusedNamingTheKey()
    {
        QFETCH(QByteArray, yaml);
        QFETCH(QByteArray, key);
        QFETCH(QByteArray, fragment);
        const InputError error = yamlError(yaml.toStdString());
        QVERIFY2(QByteArray(error.what()).contains(fragment), error.what());
        QVERIFY2(QByteArray::fromStdString(error.key).startsWith(key), error.what());
        QVERIFY2(std::string(error.what()).size() < 300, error.what());
    }

    void aliasesExpandUnderABudget_data()
    {
        QTest::addColumn<QByteArray>("yaml");
        QTest::addColumn<QByteArray>("fragment");
        // "Billion laughs": nine levels of nine aliases, 600 bytes, 387 million values expanded.
        QByteArray laughs = "a: &a [\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\"]\n";
        for (char level = 'b'; level <= 'i'; ++level) {
            const char previous = char(level - 1);
            laughs += QByteArray(1, level) + ": &" + QByteArray(1, level) + " [";
            for (int i = 0; i < 9; ++i)
                laughs += QByteArray(i ? "," : "") + "*" + QByteArray(1, previous);
            laughs += "]\n";
        }
        QTest::newRow("billion-laughs") << laughs << QByteArray("200,000 values");
        // The issue's second case: thousands of aliases of one long list.
        QByteArray list = "base: &l [";
        for (int i = 0; i < 20000; ++i)
            list += QByteArray(i ? "," : "") + "1";
        list += "]\nuses:\n";
        for (int i = 0; i < 4000; ++i)
            list += "  - *l\n";
        QTest::newRow("4000-aliases-of-a-list") << list << QByteArray("200,000 values");
        // One long string repeated: the text budget.
        QByteArray text = "s: &s \"" + QByteArray(1 << 20, 'x') + "\"\nr: [*s, *s, *s, *s, *s, *s, *s, *s, *s, *s, *s, *s, *s, *s, *s, *s, *s]\n";
        QTest::newRow("one-megabyte-string-17-times") << text << QByteArray("16,777,216 bytes of text");
        // Merges count too: one mapping of 1,000 values merged into 300 others.
        QByteArray merges = "b: &b {x: [";
        for (int i = 0; i < 1000; ++i)
            merges += QByteArray(i ? "," : "") + "1";
        merges += "]}\n";
        for (int i = 0; i < 300; ++i)
            merges += "m" + QByteArray::number(i) + ": {<<: *b, y: 1}\n";
        QTest::newRow("merged-laughs") << merges << QByteArray("200,000 values");
    }
    void aliasesExpandUnderABudget()
    {
        QFETCH(QByteArray, yaml);
        QFETCH(QByteArray, fragment);
        const InputError error = yamlError(yaml.toStdString());
        QVERIFY2(QByteArray(error.what()).contains(fragment), error.what());
        QVERIFY2(QByteArray(error.what()).contains("aliases expanded"), error.what());
    }

    void budgetIsCountedOnceAliasesAreExpanded()
    {
        // Small limits, counted by hand: {a: [1, 2], b: *a-list} builds 1 (root) + 1 (a) +
        // 1 (list) + 2 (items) + 1 (b) + 3 (the list again) = 9 values.
        const std::string text = "a: &l [1, 2]\nb: *l\n";
        YamlLimits nine;
        nine.maxValues = 9;
        QCOMPARE(parseYaml(text, nine), json({{"a", {1, 2}}, {"b", {1, 2}}}));
        YamlLimits eight;
        eight.maxValues = 8;
        QVERIFY(QByteArray(yamlError(text, eight).what()).contains("more than 8 values"));
    }

    void oneDocumentOnly()
    {
        QCOMPARE(parseYaml("a: 1\n...\n"), json({{"a", 1}}));
        QCOMPARE(parseYaml("---\na: 1\n"), json({{"a", 1}}));
        QCOMPARE(parseYaml(""), json(nullptr));
        QCOMPARE(parseYaml("# only a comment\n"), json(nullptr));
    }

    void jsonIsYamlToo()
    {
        QCOMPARE(parseYaml(R"({"a": 1, "b": [true, null, "x"]})"), json({{"a", 1}, {"b", {true, nullptr, "x"}}}));
    }
};

QTEST_GUILESS_MAIN(TestYamlText)
#include "tst_yamltext.moc"
