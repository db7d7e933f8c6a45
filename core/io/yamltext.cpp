// SPDX-License-Identifier: GPL-3.0-or-later
// YAML read from yaml-cpp's parser events straight into JSON (no yaml-cpp node tree, so an
// alias is expanded here, counted against the budget, and never shared behind our back), with
// PyYAML's SafeLoader rules for scalars (resolver.py and constructor.py of PyYAML 6).
#include "io/yamltext.h"

#include "io/yamlscalars.h"

#include "scenario/units.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <istream>
#include <map>
#include <new>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <streambuf>
#include <vector>
#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/exceptions.h>
#include <yaml-cpp/mark.h>
#include <yaml-cpp/parser.h>
#include <yaml-cpp/depthguard.h>

namespace headroom {

using nlohmann::json;
using namespace yaml;

namespace {

/// The longest key path a message names in full (as for JSON).
constexpr std::size_t kMaxPathChars = 200;

/// A key as Python prints the key PyYAML built (`010` is the key 8, `yes` True).
std::string pythonKeyText(const json &key)
{
    if (key.is_string())
        return key.get<std::string>();
    if (key.is_boolean())
        return key.get<bool>() ? "True" : "False";
    return key.dump();
}

/// The input as a stream for yaml-cpp, without a copy.
class ViewBuffer : public std::streambuf
{
public:
    explicit ViewBuffer(std::string_view text)
    {
        char *begin = const_cast<char *>(text.data());
        setg(begin, begin, begin + text.size());
    }
};

/// Thrown by the handler of the second document: the first one is all there may be.
struct SecondDocument
{
    YAML::Mark mark;
};

class SecondDocumentProbe : public YAML::EventHandler
{
public:
    void OnDocumentStart(const YAML::Mark &mark) override { throw SecondDocument{mark}; }
    void OnDocumentEnd() override {}
    void OnNull(const YAML::Mark &, YAML::anchor_t) override {}
    void OnAlias(const YAML::Mark &, YAML::anchor_t) override {}
    void OnScalar(const YAML::Mark &, const std::string &, YAML::anchor_t, const std::string &) override {}
    void OnSequenceStart(const YAML::Mark &, const std::string &, YAML::anchor_t, YAML::EmitterStyle::value) override {}
    void OnSequenceEnd() override {}
    void OnMapStart(const YAML::Mark &, const std::string &, YAML::anchor_t, YAML::EmitterStyle::value) override {}
    void OnMapEnd() override {}
};

/// A value built, with what it cost (for the budget when an alias repeats it).
struct Built
{
    json value;
    std::size_t values = 0;
    std::uint64_t textBytes = 0;
};

/// Builds the JSON of one document from the parser's events.
class Builder : public YAML::EventHandler
{
public:
    explicit Builder(const YamlLimits &limits) : m_limits(limits) {}

    json take() { return std::move(m_root); }

    void OnDocumentStart(const YAML::Mark &) override {}
    void OnDocumentEnd() override {}

    void OnNull(const YAML::Mark &mark, YAML::anchor_t anchor) override
    {
        if (expectingKey())
            fail(mark, "a key must be a name, not empty or null");
        enterItem();
        deliver(mark, anchor, Built{json(nullptr), 1, 0});
    }

    void OnAlias(const YAML::Mark &mark, YAML::anchor_t anchor) override
    {
        if (m_open.count(anchor))
            fail(mark, "an alias refers to the value it is inside (a value that contains itself)");
        const auto it = m_anchors.find(anchor);
        if (it == m_anchors.end())
            fail(mark, "an alias names an anchor that is not defined");
        if (expectingKey()) {
            if (!it->second.value.is_string())
                fail(mark, "a key must be a name, not a list or mapping");
            key(mark, it->second.value.get<std::string>(), false);
            return;
        }
        enterItem();
        spend(mark, it->second.values, it->second.textBytes);
        deliver(mark, YAML::NullAnchor, Built{it->second.value, it->second.values, it->second.textBytes},
                /*counted=*/true);
    }

    void OnScalar(const YAML::Mark &mark, const std::string &tag, YAML::anchor_t anchor,
                  const std::string &text) override
    {
        if (!expectingKey())
            enterItem();
        if (firstInvalidUtf8(text) != std::string_view::npos)
            fail(mark, "a value whose escapes make bytes that are not UTF-8 text");
        json value;
        Kind kind = scalar(mark, tag, text, value);
        if (expectingKey()) {
            if (kind == Kind::Null)
                fail(mark, "a key must be a name, not empty or null");
            spend(mark, 0, text.size());
            key(mark, kind == Kind::Merge ? std::string("<<") : pythonKeyText(value), kind == Kind::Merge);
            if (anchor != YAML::NullAnchor)
                m_anchors[anchor] = Built{value, 1, text.size()};
            return;
        }
        if (kind == Kind::Merge)
            fail(mark, "\"<<\" (a merge key) may only be a key");
        if (kind == Kind::Value)
            fail(mark, "\"=\" as a value is not read by PyYAML's safe_load");
        deliver(mark, anchor, Built{std::move(value), 1, text.size()});
    }

    void OnSequenceStart(const YAML::Mark &mark, const std::string &tag, YAML::anchor_t anchor,
                         YAML::EmitterStyle::value) override
    {
        open(mark, tag, anchor, json::array(), "tag:yaml.org,2002:seq");
    }
    void OnSequenceEnd() override { close(); }

    void OnMapStart(const YAML::Mark &mark, const std::string &tag, YAML::anchor_t anchor,
                    YAML::EmitterStyle::value) override
    {
        open(mark, tag, anchor, json::object(), "tag:yaml.org,2002:map");
    }
    void OnMapEnd() override { close(); }

private:
    struct Frame
    {
        json value;
        YAML::anchor_t anchor = YAML::NullAnchor;
        YAML::Mark mark;
        std::size_t pathLength = 0;   ///< m_path's length with this frame's own part
        std::size_t valuesAtStart = 0;
        std::uint64_t bytesAtStart = 0;
        // Mappings:
        std::optional<std::string> key; ///< the key whose value comes next
        bool mergeNext = false;         ///< that key is "<<"
        YAML::Mark keyMark;
        std::set<std::string> explicitKeys;
        std::vector<json> merges;       ///< mappings merged in, in PyYAML's order
    };

    bool expectingKey() const
    {
        return !m_stack.empty() && m_stack.back().value.is_object() && !m_stack.back().key &&
               !m_stack.back().mergeNext;
    }

    std::string path() const
    {
        return m_path.size() <= kMaxPathChars ? m_path : quoteText(m_path, kMaxPathChars);
    }

    [[noreturn]] void fail(const YAML::Mark &mark, const std::string &message) const
    {
        const std::string where = mark.is_null() ? std::string() : "line " + std::to_string(mark.line + 1) + ": ";
        throw InputError(path(), where + message);
    }

    void spend(const YAML::Mark &mark, std::size_t values, std::uint64_t bytes)
    {
        m_values += values;
        m_textBytes += bytes;
        if (m_values > m_limits.maxValues)
            fail(mark, "builds more than " + groupDigits(m_limits.maxValues) +
                           " values with its aliases expanded (the limit for one YAML file)");
        if (m_textBytes > m_limits.maxTextBytes)
            fail(mark, "builds more than " + groupDigits(m_limits.maxTextBytes) +
                           " bytes of text with its aliases expanded (the limit for one YAML file)");
    }

    /// A scalar value by its tag: PyYAML's implicit resolution for plain ones.
    Kind scalar(const YAML::Mark &mark, const std::string &tag, const std::string &text, json &value)
    {
        static const std::string yamlTag = "tag:yaml.org,2002:";
        Kind kind = Kind::Text;
        bool boolean = false;
        if (tag == "?") {
            kind = resolvePlain(text, boolean);
        } else if (tag == "!" || tag == yamlTag + "str") {
            kind = Kind::Text;
        } else if (tag == yamlTag + "int") {
            if (!matchesInt(text))
                fail(mark, "!!int " + quoted(text) + " is not a whole number PyYAML can read");
            kind = Kind::Int;
        } else if (tag == yamlTag + "float") {
            kind = Kind::Float;
        } else if (tag == yamlTag + "bool") {
            std::string lower = text;
            std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return char(std::tolower(c)); });
            if (!matchesBool(lower, boolean))
                fail(mark, "!!bool " + quoted(text) + " is not yes, no, true, false, on or off");
            kind = Kind::Bool;
        } else if (tag == yamlTag + "null") {
            kind = Kind::Null;
        } else if (tag == yamlTag + "timestamp") {
            if (!matchesTimestamp(text))
                fail(mark, "!!timestamp " + quoted(text) + " is not a date");
            kind = Kind::Timestamp;
        } else {
            fail(mark, "the tag " + quoted(tag) + " is not read here (only str, int, float, bool, null and "
                       "timestamp scalars)");
        }
        Problem problem;
        switch (kind) {
        case Kind::Null: value = nullptr; break;
        case Kind::Bool: value = boolean; break;
        case Kind::Int: problem = constructInt(text, value); break;
        case Kind::Float: problem = constructFloat(text, value); break;
        case Kind::Text:
        case Kind::Timestamp:
        case Kind::Merge:
        case Kind::Value: value = text; break;
        }
        if (!problem.empty())
            fail(mark, quoted(text) + " " + problem);
        return kind;
    }

    static std::string quoted(const std::string &text) { return "\"" + quoteText(text) + "\""; }

    void key(const YAML::Mark &mark, const std::string &name, bool merge)
    {
        Frame &frame = m_stack.back();
        spend(mark, 1, 0);
        frame.keyMark = mark;
        m_path.resize(frame.pathLength);
        m_path += (m_path.empty() ? "" : ".") + (merge ? std::string("<<") : keyForPath(name));
        if (merge) {
            frame.mergeNext = true;
            return;
        }
        if (!frame.explicitKeys.insert(name).second)
            fail(mark, "appears twice in the same mapping (each key may be given once)");
        frame.key = name;
    }

    /// A value inside a list is named by its index in messages.
    void enterItem()
    {
        if (!m_stack.empty() && m_stack.back().value.is_array())
            m_path += "[" + std::to_string(m_stack.back().value.size()) + "]";
    }

    void open(const YAML::Mark &mark, const std::string &tag, YAML::anchor_t anchor, json &&empty,
              const std::string &collectionTag)
    {
        if (expectingKey())
            fail(mark, "a key must be a name, not a list or mapping");
        if (tag != "?" && tag != "!" && tag != collectionTag)
            fail(mark, "the tag " + quoted(tag) + " is not read here (only plain lists and mappings)");
        if (int(m_stack.size()) >= m_limits.maxDepth)
            fail(mark, "nested deeper than " + std::to_string(m_limits.maxDepth) +
                           " levels of lists and mappings");
        enterItem();
        spend(mark, 1, 0);
        Frame frame;
        frame.value = std::move(empty);
        frame.anchor = anchor;
        frame.mark = mark;
        frame.pathLength = m_path.size();
        frame.valuesAtStart = m_values - 1;
        frame.bytesAtStart = m_textBytes;
        if (anchor != YAML::NullAnchor)
            m_open.insert(anchor);
        m_stack.push_back(std::move(frame));
    }

    void close()
    {
        Frame frame = std::move(m_stack.back());
        m_stack.pop_back();
        if (!frame.merges.empty()) {
            // PyYAML's flatten_mapping: the merged pairs first, in order, then the mapping's
            // own, each assignment replacing an earlier one.
            json merged = json::object();
            for (const json &source : frame.merges)
                for (const auto &[k, v] : source.items())
                    merged[k] = v;
            for (auto &[k, v] : frame.value.items())
                merged[k] = std::move(v);
            frame.value = std::move(merged);
        }
        if (frame.anchor != YAML::NullAnchor)
            m_open.erase(frame.anchor);
        const std::size_t values = m_values - frame.valuesAtStart;
        const std::uint64_t bytes = m_textBytes - frame.bytesAtStart;
        deliver(frame.mark, frame.anchor, Built{std::move(frame.value), values, bytes}, true);
    }

    /// A finished value goes to its list, its key or the root; `counted` when already spent.
    void deliver(const YAML::Mark &mark, YAML::anchor_t anchor, Built &&built, bool counted = false)
    {
        if (!counted)
            spend(mark, built.values, built.textBytes);
        if (anchor != YAML::NullAnchor)
            m_anchors[anchor] = Built{built.value, built.values, built.textBytes};
        if (m_stack.empty()) {
            m_root = std::move(built.value);
            m_path.clear();
            return;
        }
        Frame &parent = m_stack.back();
        if (parent.value.is_array()) {
            parent.value.push_back(std::move(built.value));
            m_path.resize(parent.pathLength);
            return;
        }
        if (parent.mergeNext) {
            parent.mergeNext = false;
            json &source = built.value;
            if (source.is_object()) {
                parent.merges.push_back(std::move(source));
            } else if (source.is_array() && !source.empty() &&
                       std::all_of(source.begin(), source.end(), [](const json &m) { return m.is_object(); })) {
                // [a, b]: b's pairs, then a's, so that a wins.
                for (auto it = source.rbegin(); it != source.rend(); ++it)
                    parent.merges.push_back(std::move(*it));
            } else {
                fail(parent.keyMark, "a merge (<<) takes a mapping or a list of mappings");
            }
        } else {
            parent.value[*parent.key] = std::move(built.value);
            parent.key.reset();
        }
        m_path.resize(parent.pathLength);
    }

    const YamlLimits &m_limits;
    json m_root;
    std::vector<Frame> m_stack;
    std::map<YAML::anchor_t, Built> m_anchors;
    std::set<YAML::anchor_t> m_open;
    std::string m_path;
    std::size_t m_values = 0;
    std::uint64_t m_textBytes = 0;
};

} // namespace

json parseYaml(std::string_view text, const YamlLimits &limits)
{
    try {
        ViewBuffer buffer(text);
        std::istream stream(&buffer);
        YAML::Parser parser(stream);
        Builder builder(limits);
        if (!parser.HandleNextDocument(builder))
            return nullptr;
        json root = builder.take();
        SecondDocumentProbe probe;
        try {
            parser.HandleNextDocument(probe);
        } catch (const SecondDocument &second) {
            throw InputError("", "line " + std::to_string(second.mark.line + 1) +
                                     ": a second YAML document (a file holds one; PyYAML's safe_load "
                                     "refuses more)");
        }
        return root;
    } catch (const InputError &) {
        throw;
    } catch (const YAML::DeepRecursion &error) {
        throw InputError("", "line " + std::to_string(error.mark.line + 1) + ": nested deeper than " +
                                 std::to_string(limits.maxDepth) + " levels of lists and mappings");
    } catch (const YAML::Exception &error) {
        std::string where;
        if (!error.mark.is_null())
            where = "line " + std::to_string(error.mark.line + 1) + ", column " +
                    std::to_string(error.mark.column + 1) + ": ";
        throw InputError("", "not valid YAML: " + where + printable(error.msg));
    } catch (const std::bad_alloc &) {
        throw InputError("", "not enough memory to read this YAML");
    } catch (const std::exception &) {
        throw InputError("", "cannot be read as YAML");
    }
}

} // namespace headroom
