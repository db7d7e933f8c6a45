// SPDX-License-Identifier: GPL-3.0-or-later
#include "io/pickle.h"

#include <cmath>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace headroom {

namespace {

/// A value as the pickle builds it: containers are shared (the memo and the stack hold the same
/// one, and APPEND after MEMOIZE changes both), so a container is a node.
struct Node
{
    enum class Kind { None, Bool, Int, Float, Str, List, Tuple, Set, Dict, Mark } kind = Kind::None;
    bool boolean = false;
    std::int64_t integer = 0;
    double real = 0;
    std::string text;
    std::vector<std::shared_ptr<Node>> items;                          // list, tuple, set
    std::vector<std::pair<std::string, std::shared_ptr<Node>>> fields; // dict, in insertion order
    std::unordered_map<std::string, std::size_t> index;               // dict: key -> field
};
using NodePtr = std::shared_ptr<Node>;

class Reader
{
public:
    explicit Reader(std::string_view bytes) : m_bytes(bytes) {}
    Reader(const Reader &) = delete;
    Reader &operator=(const Reader &) = delete;
    /// Without recursion: a chain of a million nested lists (or a list that contains itself)
    /// would otherwise be freed one call deeper per level. Every node is held here, so emptying
    /// the containers first frees nothing; then each node goes alone.
    ~Reader()
    {
        for (const NodePtr &n : m_all) {
            n->items.clear();
            n->fields.clear();
            n->index.clear();
        }
    }

    nlohmann::json read()
    {
        if (m_bytes.size() > limits::kPickleBytes)
            throw InputError("", "the pickle is " + std::to_string(m_bytes.size()) + " bytes, more than the " +
                                     std::to_string(limits::kPickleBytes / (1024 * 1024)) + " MiB read");
        while (true) {
            if (m_pos >= m_bytes.size())
                fail(m_pos, "the pickle ends before its STOP opcode (cut off?)");
            m_at = m_pos;
            const unsigned char op = static_cast<unsigned char>(m_bytes[m_pos++]);
            if (op == '.')
                break;
            step(op);
        }
        if (m_stack.size() != 1 || m_stack.back()->kind == Node::Kind::Mark)
            fail(m_at, "STOP with " + std::to_string(m_stack.size()) + " values on the stack (one expected)");
        std::unordered_set<const Node *> open;
        return toJson(*m_stack.back(), open, 0);
    }

private:
    [[noreturn]] void fail(std::size_t at, const std::string &message) const
    {
        throw InputError("byte " + std::to_string(at), message);
    }

    std::string_view take(std::uint64_t n)
    {
        if (n > m_bytes.size() - m_pos)
            fail(m_at, "the pickle ends inside an opcode's argument (cut off?)");
        const std::string_view s = m_bytes.substr(m_pos, std::size_t(n));
        m_pos += std::size_t(n);
        return s;
    }

    std::uint64_t little(std::size_t n)
    {
        const std::string_view s = take(n);
        std::uint64_t v = 0;
        for (std::size_t i = 0; i < n; ++i)
            v |= std::uint64_t(static_cast<unsigned char>(s[i])) << (8 * i);
        return v;
    }

    NodePtr make(Node::Kind kind)
    {
        if (++m_nodes > limits::kPickleValues)
            fail(m_at, "more than " + std::to_string(limits::kPickleValues) + " values");
        auto n = std::make_shared<Node>();
        n->kind = kind;
        m_all.push_back(n);
        return n;
    }

    void push(NodePtr n)
    {
        if (m_stack.size() >= limits::kPickleValues)
            fail(m_at, "a stack deeper than the values read");
        m_stack.push_back(std::move(n));
    }

    NodePtr pop()
    {
        if (m_stack.empty() || m_stack.back()->kind == Node::Kind::Mark)
            fail(m_at, "an opcode takes a value from an empty stack");
        NodePtr n = std::move(m_stack.back());
        m_stack.pop_back();
        return n;
    }

    /// The values above the topmost MARK, removed with the mark.
    std::vector<NodePtr> popMark()
    {
        std::size_t i = m_stack.size();
        while (i > 0 && m_stack[i - 1]->kind != Node::Kind::Mark)
            --i;
        if (i == 0)
            fail(m_at, "an opcode needs a MARK that is not on the stack");
        std::vector<NodePtr> items(std::make_move_iterator(m_stack.begin() + std::ptrdiff_t(i)),
                                   std::make_move_iterator(m_stack.end()));
        m_stack.resize(i - 1);
        return items;
    }

    NodePtr &top()
    {
        if (m_stack.empty() || m_stack.back()->kind == Node::Kind::Mark)
            fail(m_at, "an opcode needs a value on the stack");
        return m_stack.back();
    }

    void setItems(const std::vector<NodePtr> &pairs)
    {
        NodePtr &dict = top();
        if (dict->kind != Node::Kind::Dict)
            fail(m_at, "SETITEM(S) on a value that is not a dict");
        if (pairs.size() % 2)
            fail(m_at, "SETITEMS with a key and no value");
        for (std::size_t i = 0; i < pairs.size(); i += 2) {
            if (pairs[i]->kind != Node::Kind::Str)
                fail(m_at, "a dict key that is not a str (only str keys are read)");
            const auto found = dict->index.find(pairs[i]->text);
            if (found != dict->index.end()) {
                dict->fields[found->second].second = pairs[i + 1]; // Python keeps the last
            } else {
                dict->index.emplace(pairs[i]->text, dict->fields.size());
                dict->fields.emplace_back(pairs[i]->text, pairs[i + 1]);
            }
        }
    }

    void append(const std::vector<NodePtr> &items, bool set)
    {
        NodePtr &target = top();
        if (target->kind != (set ? Node::Kind::Set : Node::Kind::List))
            fail(m_at, set ? "ADDITEMS on a value that is not a set" : "APPEND(S) on a value that is not a list");
        target->items.insert(target->items.end(), items.begin(), items.end());
    }

    void memoize(std::uint64_t key)
    {
        if (m_memo.size() >= limits::kPickleValues && !m_memo.count(key))
            fail(m_at, "more memo entries than values");
        m_memo[key] = top();
    }

    NodePtr recall(std::uint64_t key)
    {
        const auto found = m_memo.find(key);
        if (found == m_memo.end())
            fail(m_at, "a memo entry " + std::to_string(key) + " that was never stored");
        return found->second;
    }

    NodePtr text(std::string_view s)
    {
        if (firstInvalidUtf8(s) != std::string_view::npos)
            fail(m_at, "a str that is not UTF-8");
        NodePtr n = make(Node::Kind::Str);
        n->text = std::string(s);
        return n;
    }

    NodePtr integer(std::int64_t v)
    {
        NodePtr n = make(Node::Kind::Int);
        n->integer = v;
        return n;
    }

    NodePtr longInteger(std::string_view s)
    {
        // Two's complement, little-endian; "" is 0.
        if (s.size() > 8) {
            // A longer encoding is still a 64-bit value when its extra bytes only extend the sign.
            const unsigned char fill = (static_cast<unsigned char>(s.back()) & 0x80) ? 0xff : 0x00;
            for (std::size_t i = 8; i < s.size(); ++i)
                if (static_cast<unsigned char>(s[i]) != fill)
                    fail(m_at, "a whole number past 64 bits");
            if ((static_cast<unsigned char>(s[7]) & 0x80) != (fill & 0x80))
                fail(m_at, "a whole number past 64 bits");
            s = s.substr(0, 8);
        }
        std::uint64_t v = 0;
        for (std::size_t i = 0; i < s.size(); ++i)
            v |= std::uint64_t(static_cast<unsigned char>(s[i])) << (8 * i);
        if (!s.empty() && s.size() < 8 && (static_cast<unsigned char>(s.back()) & 0x80))
            v |= ~std::uint64_t(0) << (8 * s.size());
        return integer(static_cast<std::int64_t>(v));
    }

    void refuse(unsigned char op, const char *name, const char *why)
    {
        char code[8];
        std::snprintf(code, sizeof code, "0x%02x", op);
        fail(m_at, std::string(name) + " (" + code + ") " + why + ": only plain containers and numbers are read");
    }

    void step(unsigned char op)
    {
        switch (op) {
        case 0x80: { // PROTO
            const std::uint64_t protocol = little(1);
            if (protocol < 2 || protocol > 5)
                fail(m_at, "pickle protocol " + std::to_string(protocol) + " (2 to 5 are read)");
            return;
        }
        case 0x95: little(8); return; // FRAME: its length only groups opcodes
        case '}': push(make(Node::Kind::Dict)); return;
        case ']': push(make(Node::Kind::List)); return;
        case ')': push(make(Node::Kind::Tuple)); return;
        case 0x8f: push(make(Node::Kind::Set)); return;
        case '(': push(make(Node::Kind::Mark)); return;
        case 's': {
            NodePtr value = pop(), key = pop();
            setItems({key, value});
            return;
        }
        case 'u': setItems(popMark()); return;
        case 'a': append({pop()}, false); return;
        case 'e': append(popMark(), false); return;
        case 0x90: append(popMark(), true); return;
        case 't':
        case 0x91: {
            NodePtr n = make(op == 't' ? Node::Kind::Tuple : Node::Kind::Set);
            n->items = popMark();
            push(n);
            return;
        }
        case 0x85:
        case 0x86:
        case 0x87: {
            const std::size_t count = std::size_t(op - 0x84);
            NodePtr n = make(Node::Kind::Tuple);
            n->items.resize(count);
            for (std::size_t i = count; i > 0; --i)
                n->items[i - 1] = pop();
            push(n);
            return;
        }
        case 'J': push(integer(std::int32_t(std::uint32_t(little(4))))); return;
        case 'K': push(integer(std::int64_t(little(1)))); return;
        case 'M': push(integer(std::int64_t(little(2)))); return;
        case 0x8a: push(longInteger(take(little(1)))); return;
        case 0x8b: {
            const std::uint64_t n = little(4);
            if (n > 1024)
                fail(m_at, "a whole number past 64 bits");
            push(longInteger(take(n)));
            return;
        }
        case 'G': {
            const std::string_view s = take(8);
            std::uint64_t bits = 0;
            for (std::size_t i = 0; i < 8; ++i)
                bits = (bits << 8) | static_cast<unsigned char>(s[i]); // big-endian
            double v;
            std::memcpy(&v, &bits, sizeof v);
            if (!std::isfinite(v))
                fail(m_at, "a float that is not finite");
            NodePtr n = make(Node::Kind::Float);
            n->real = v;
            push(n);
            return;
        }
        case 0x8c: push(text(take(little(1)))); return;
        case 'X': push(text(take(little(4)))); return;
        case 0x8d: push(text(take(little(8)))); return;
        case 'N': push(make(Node::Kind::None)); return;
        case 0x88:
        case 0x89: {
            NodePtr n = make(Node::Kind::Bool);
            n->boolean = op == 0x88;
            push(n);
            return;
        }
        case 0x94: memoize(m_memo.size()); return; // MEMOIZE: the next index
        case 'q': memoize(little(1)); return;
        case 'r': memoize(little(4)); return;
        case 'h': push(recall(little(1))); return;
        case 'j': push(recall(little(4))); return;
        case '0':
            if (!m_stack.empty())
                m_stack.pop_back();
            else
                fail(m_at, "POP on an empty stack");
            return;
        case '1': popMark(); return;
        case '2': push(top()); return;
        case 'c': refuse(op, "GLOBAL", "names a Python object"); break;
        case 0x93: refuse(op, "STACK_GLOBAL", "names a Python object"); break;
        case 'R': refuse(op, "REDUCE", "calls a Python object"); break;
        case 'b': refuse(op, "BUILD", "sets an object's state"); break;
        case 'i': refuse(op, "INST", "constructs an object"); break;
        case 'o': refuse(op, "OBJ", "constructs an object"); break;
        case 0x81: refuse(op, "NEWOBJ", "constructs an object"); break;
        case 0x92: refuse(op, "NEWOBJ_EX", "constructs an object"); break;
        case 'P': refuse(op, "PERSID", "loads an outside object"); break;
        case 'Q': refuse(op, "BINPERSID", "loads an outside object"); break;
        case 0x82: case 0x83: case 0x84: refuse(op, "EXT", "names a registered object"); break;
        case 'C': case 'B': case 0x8e: case 'U': case 'T': case 0x96: case 0x97: case 0x98:
            refuse(op, "a bytes or buffer opcode", "carries binary data");
            break;
        default:
            refuse(op, "an opcode of protocol 0 or 1, or none", "is not read");
        }
    }

    nlohmann::json toJson(const Node &n, std::unordered_set<const Node *> &open, int depth)
    {
        if (++m_written > limits::kPickleValues)
            throw InputError("", "more than " + std::to_string(limits::kPickleValues) +
                                     " values once shared values are written out");
        if (depth > limits::kJsonDepth)
            throw InputError("", "values nested deeper than " + std::to_string(limits::kJsonDepth));
        switch (n.kind) {
        case Node::Kind::None: return nullptr;
        case Node::Kind::Bool: return n.boolean;
        case Node::Kind::Int: return n.integer;
        case Node::Kind::Float: return n.real;
        case Node::Kind::Str: return n.text;
        case Node::Kind::Mark: throw InputError("", "a MARK left inside a value");
        default: break;
        }
        if (!open.insert(&n).second)
            throw InputError("", "a container that contains itself");
        nlohmann::json out;
        if (n.kind == Node::Kind::Dict) {
            out = nlohmann::json::object();
            for (const auto &[key, value] : n.fields)
                out[key] = toJson(*value, open, depth + 1);
        } else {
            out = nlohmann::json::array();
            for (const NodePtr &item : n.items)
                out.push_back(toJson(*item, open, depth + 1));
        }
        open.erase(&n);
        return out;
    }

    std::string_view m_bytes;
    std::size_t m_pos = 0;
    std::size_t m_at = 0;
    std::uint64_t m_nodes = 0;
    std::uint64_t m_written = 0;
    std::vector<NodePtr> m_stack;
    std::unordered_map<std::uint64_t, NodePtr> m_memo;
    std::vector<NodePtr> m_all; ///< every node made, for the destructor
};

} // namespace

nlohmann::json readPickle(std::string_view bytes)
{
    return Reader(bytes).read();
}

} // namespace headroom
