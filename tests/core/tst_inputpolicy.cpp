// SPDX-License-Identifier: GPL-3.0-or-later
// The input policy every reader shares: strict JSON (depth counted while parsing, keys given
// once, size bounded), short quotes in messages, escapes for the terminal, checked conversions.
#include "io/inputpolicy.h"

#include <QtTest>
#include <nlohmann/json.hpp>
#include <string>

using namespace headroom;
using nlohmann::json;

namespace {

/// `depth` nested lists around a zero: "[[0]]" for 2.
std::string nested(int depth)
{
    return std::string(std::size_t(depth), '[') + "0" + std::string(std::size_t(depth), ']');
}

/// The error a strict parse throws (a default one when it parses).
JsonInputError parseError(const std::string &text, const JsonLimits &limits = {})
{
    try {
        parseStrictJson(text, limits);
    } catch (const JsonInputError &error) {
        return error;
    }
    return JsonInputError(JsonProblem::Syntax, "(parsed)", "(parsed)");
}

} // namespace

class TestInputPolicy : public QObject
{
    Q_OBJECT
private slots:
    void depthIsCountedWhileParsing()
    {
        // 64 levels are allowed; the 65th is refused with the path of the container.
        QCOMPARE(parseStrictJson(nested(limits::kJsonDepth)).dump().size(),
                 std::size_t(2 * limits::kJsonDepth + 1));
        const JsonInputError error = parseError("{\"a\": " + nested(limits::kJsonDepth) + "}");
        QCOMPARE(int(error.problem), int(JsonProblem::TooDeep));
        QCOMPARE(error.key.substr(0, 7), std::string("a[0][0]"));
        QVERIFY(error.detail.find("deeper than 64") != std::string::npos);
    }

    void fiftyThousandLevelsFailWithoutRecursion()
    {
        // The reproducer of the stack overflow: 100 KB of brackets.
        const JsonInputError error = parseError("{\"name\": " + nested(50000) + "}");
        QCOMPARE(int(error.problem), int(JsonProblem::TooDeep));
        QVERIFY(error.key.rfind("name[0]", 0) == 0);
        QVERIFY2(std::string(error.what()).size() < 400, error.what());
    }

    void duplicateKeysNameTheirPath_data()
    {
        QTest::addColumn<QByteArray>("text");
        QTest::addColumn<QByteArray>("key");
        QTest::newRow("root") << QByteArray(R"({"version": 1, "version": 2})") << QByteArray("version");
        QTest::newRow("nested") << QByteArray(R"({"train": {"lora": {"rank": 0, "rank": 8}}})")
                                << QByteArray("train.lora.rank");
        QTest::newRow("in-a-list") << QByteArray(R"({"steps": [{}, {"title": "a", "title": "b"}]})")
                                   << QByteArray("steps[1].title");
        QTest::newRow("odd-key-quoted") << QByteArray("{\"a b\": 1, \"a b\": 2}") << QByteArray("\"a b\"");
        QTest::newRow("first-invalid-last-valid")
            << QByteArray(R"({"train": {"micro_batch": "x", "micro_batch": 4}})")
            << QByteArray("train.micro_batch");
    }
    void duplicateKeysNameTheirPath()
    {
        QFETCH(QByteArray, text);
        QFETCH(QByteArray, key);
        const JsonInputError error = parseError(text.toStdString());
        QCOMPARE(int(error.problem), int(JsonProblem::DuplicateKey));
        QCOMPARE(QByteArray::fromStdString(error.key), key);
    }

    void sizeIsBoundedBeforeParsing()
    {
        const std::string text = "[" + std::string(100, ' ') + "]";
        QCOMPARE(int(parseError(text, {50, 8}).problem), int(JsonProblem::TooLarge));
        QVERIFY(parseStrictJson(text, {text.size(), 8}).is_array());
    }

    void syntaxErrorsQuoteAShortPrefix_data()
    {
        QTest::addColumn<QByteArray>("text");
        QTest::addColumn<QByteArray>("fragment");
        QTest::newRow("empty") << QByteArray("") << QByteArray("not valid JSON");
        QTest::newRow("line-and-column") << QByteArray("{\n  \"a\": tru }") << QByteArray("line 2, column");
        QTest::newRow("trailing-text") << QByteArray("{} {}") << QByteArray("not valid JSON");
        QTest::newRow("comment") << QByteArray("{} // no comments") << QByteArray("not valid JSON");
        QTest::newRow("invalid-utf8") << QByteArray("\"\xff\"") << QByteArray("not valid JSON");
        QTest::newRow("unterminated-megabyte") << QByteArray("\"" + QByteArray(1 << 20, 'x'))
                                               << QByteArray("...");
        QTest::newRow("raw-escape-in-string") << QByteArray("\"\x1b[31m\"") << QByteArray("not valid JSON");
    }
    void syntaxErrorsQuoteAShortPrefix()
    {
        QFETCH(QByteArray, text);
        QFETCH(QByteArray, fragment);
        const JsonInputError error = parseError(text.toStdString());
        QCOMPARE(int(error.problem), int(JsonProblem::Syntax));
        const std::string message = error.what();
        QVERIFY2(message.find(fragment.toStdString()) != std::string::npos, message.c_str());
        QVERIFY2(message.size() < 300, message.c_str());
        QVERIFY2(message.find('\x1b') == std::string::npos, message.c_str());
    }

    void quotesAreShortAndNeverSerializeEverything()
    {
        QCOMPARE(quoteJson(json::parse(R"({"a":[1,2]})")), std::string(R"({"a":[1,2]})"));
        json big = json::array();
        for (int i = 0; i < 100000; ++i)
            big.push_back(i);
        const std::string quoted = quoteJson(big);
        QCOMPARE(quoted.size(), limits::kQuoteChars);
        QCOMPARE(quoted.substr(quoted.size() - 3), std::string("..."));
        // A value far deeper than any parse allows (built in code): quoted without recursion
        // past the quote's length.
        json deep = json::array();
        json *inner = &deep;
        for (int i = 0; i < 100000; ++i) {
            inner->push_back(json::array());
            inner = &inner->back();
        }
        QCOMPARE(quoteJson(deep, 10), std::string("[[[[[[[..."));
        QCOMPARE(quoteJson(json("\x1b[2J")), std::string("\"\\u001b[2J\""));
    }

    void textIsCutAtACharacterBoundary()
    {
        // "µ" is two bytes: a cut inside it backs off to the character before.
        QCOMPARE(quoteText("abcdefg\xc2\xb5xyz", 10), std::string("abcdefg..."));
        QCOMPARE(quoteText("abcdef\xc2\xb5xyz", 10), std::string("abcdef..."));
        QCOMPARE(quoteText("short"), std::string("short"));
    }

    void printableEscapesWhatATerminalActsOn_data()
    {
        QTest::addColumn<QByteArray>("text");
        QTest::addColumn<QByteArray>("expected");
        QTest::newRow("plain") << QByteArray("Llama 2 7B, r8") << QByteArray("Llama 2 7B, r8");
        QTest::newRow("utf8-kept") << QByteArray("\xc2\xb1 5% \xe2\x80\x94 \xf0\x9f\x98\x80")
                                   << QByteArray("\xc2\xb1 5% \xe2\x80\x94 \xf0\x9f\x98\x80");
        QTest::newRow("escape-sequence") << QByteArray("\x1b[31mred\x1b]0;t\x07")
                                         << QByteArray("\\x1b[31mred\\x1b]0;t\\x07");
        QTest::newRow("newline-tab") << QByteArray("a\nb\tc\r") << QByteArray("a\\nb\\tc\\r");
        QTest::newRow("delete") << QByteArray("a\x7f") << QByteArray("a\\x7f");
        QTest::newRow("c1-csi") << QByteArray("a\xc2\x9b" "2J") << QByteArray("a\\u009b2J");
        QTest::newRow("bidi-override") << QByteArray("abc\xe2\x80\xae" "cba") << QByteArray("abc\\u202ecba");
        QTest::newRow("bidi-isolate") << QByteArray("\xe2\x81\xa6x") << QByteArray("\\u2066x");
        QTest::newRow("invalid-byte") << QByteArray("a\xff" "b") << QByteArray("a\\xffb");
        QTest::newRow("overlong") << QByteArray("\xc0\xaf") << QByteArray("\\xc0\\xaf");
        QTest::newRow("surrogate") << QByteArray("\xed\xa0\x80") << QByteArray("\\xed\\xa0\\x80");
        QTest::newRow("truncated-sequence") << QByteArray("x\xe2\x80") << QByteArray("x\\xe2\\x80");
    }
    void printableEscapesWhatATerminalActsOn()
    {
        QFETCH(QByteArray, text);
        QFETCH(QByteArray, expected);
        QCOMPARE(QByteArray::fromStdString(printable(text.toStdString())), expected);
    }

    void keysForPaths()
    {
        QCOMPARE(keyForPath("micro_batch"), std::string("micro_batch"));
        QCOMPARE(keyForPath("train.micro_batch"), std::string("train.micro_batch"));
        QCOMPARE(keyForPath("a b"), std::string("\"a b\""));
        QCOMPARE(keyForPath(""), std::string("\"\""));
        QCOMPARE(keyForPath("\x1b[31m"), std::string("\"\\x1b[31m\""));
        QCOMPARE(keyForPath(std::string(100, 'k')).size(), limits::kQuoteChars + 2);
    }

    void doublesToBytes_data()
    {
        QTest::addColumn<double>("value");
        QTest::addColumn<bool>("ok");
        QTest::addColumn<quint64>("bytes");
        QTest::newRow("zero") << 0.0 << true << quint64(0);
        QTest::newRow("rounds-half-up") << 1.5 << true << quint64(2);
        QTest::newRow("gb") << 80e9 << true << quint64(80000000000ull);
        // The largest double below 2^64 is 2^64 - 2048.
        QTest::newRow("largest-below-2^64") << 18446744073709549568.0 << true
                                            << quint64(18446744073709549568ull);
        QTest::newRow("2^64") << 18446744073709551616.0 << false << quint64(0);
        QTest::newRow("2^63-llround-overflows") << 9223372036854775808.0 << true
                                                << quint64(9223372036854775808ull);
        QTest::newRow("negative") << -1.0 << false << quint64(0);
        QTest::newRow("nan") << std::nan("") << false << quint64(0);
        QTest::newRow("infinity") << HUGE_VAL << false << quint64(0);
        QTest::newRow("huge") << 1e300 << false << quint64(0);
    }
    void doublesToBytes()
    {
        QFETCH(double, value);
        QFETCH(bool, ok);
        QFETCH(quint64, bytes);
        std::uint64_t result = 0;
        QCOMPARE(toUint64(value, result), ok);
        if (ok)
            QCOMPARE(quint64(result), bytes);
    }
};

QTEST_APPLESS_MAIN(TestInputPolicy)
#include "tst_inputpolicy.moc"
