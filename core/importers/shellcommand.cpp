// SPDX-License-Identifier: GPL-3.0-or-later
// A launch script (`.sh`) as users share runs: the one `swift sft` / `llamafactory-cli train`
// command in it, its `--key value` arguments as a configuration tree, and the environment it
// sets before the command (NPROC_PER_NODE, CUDA_VISIBLE_DEVICES). Only what a reader of the
// script sees: simple assignments (`name=value`) are substituted; anything the shell would
// compute (`$(...)`, an unset variable) is left out and said.
#include "importers/configreader.h"

#include <cctype>
#include <cmath>
#include <cstdlib>
#include <map>

namespace headroom::importers {

namespace {

/// Words of one logical line, quotes removed, `$(...)` and `${...}` kept whole.
std::vector<std::string> words(const std::string &line, const std::string &file)
{
    std::vector<std::string> out;
    std::string word;
    bool inWord = false;
    for (std::size_t i = 0; i < line.size(); ++i) {
        const char c = line[i];
        if (c == '\'' || c == '"') {
            const std::size_t end = line.find(c, i + 1);
            if (end == std::string::npos)
                throw TrainConfigError(file, "", "a quote that is not closed in the command");
            word += line.substr(i + 1, end - i - 1);
            inWord = true;
            i = end;
        } else if (c == '$' && i + 1 < line.size() && (line[i + 1] == '(' || line[i + 1] == '{')) {
            const char close = line[i + 1] == '(' ? ')' : '}';
            const std::size_t end = line.find(close, i + 2);
            if (end == std::string::npos)
                throw TrainConfigError(file, "", "a $" + std::string(1, line[i + 1]) + " that is not closed in the command");
            word += line.substr(i, end - i + 1);
            inWord = true;
            i = end;
        } else if (c == ' ' || c == '\t') {
            if (inWord)
                out.push_back(word);
            word.clear();
            inWord = false;
        } else if (c == '#' && !inWord) {
            break;
        } else {
            word += c;
            inWord = true;
        }
        if (out.size() > 4096)
            throw TrainConfigError(file, "", "a command of more than 4,096 words");
    }
    if (inWord)
        out.push_back(word);
    return out;
}

/// `$name` / `${name}` from the script's assignments; nullopt when the shell would compute it.
std::optional<std::string> substitute(const std::string &word, const std::map<std::string, std::string> &vars)
{
    std::string out;
    for (std::size_t i = 0; i < word.size(); ++i) {
        if (word[i] != '$') {
            out += word[i];
            continue;
        }
        if (i + 1 < word.size() && word[i + 1] == '(')
            return std::nullopt;
        std::string name;
        if (i + 1 < word.size() && word[i + 1] == '{') {
            // A quoted '${name' has no closing brace (the command line's own ${...} are whole):
            // the index ran past the end, wrapped to 0 and appended the value forever.
            const std::size_t end = word.find('}', i);
            if (end == std::string::npos)
                return std::nullopt;
            name = word.substr(i + 2, end - i - 2);
            i = end;
        } else {
            std::size_t j = i + 1;
            while (j < word.size() && (std::isalnum(static_cast<unsigned char>(word[j])) || word[j] == '_'))
                ++j;
            name = word.substr(i + 1, j - i - 1);
            i = j - 1;
        }
        const auto it = vars.find(name);
        if (it == vars.end())
            return std::nullopt;
        out += it->second;
    }
    return out;
}

json typedValue(const std::string &text)
{
    if (text == "true" || text == "True")
        return true;
    if (text == "false" || text == "False")
        return false;
    if (!text.empty() && text.find_first_not_of("0123456789") == std::string::npos && text.size() < 18)
        return std::stoll(text);
    // A decimal (0.4, 1e-5, .05), as argparse's float() and the YAML form read it.
    if (!text.empty() && text.size() < 32 && text.find_first_not_of("0123456789.eE+-") == std::string::npos &&
        text.find_first_of("0123456789") != std::string::npos) {
        char *end = nullptr;
        const double value = std::strtod(text.c_str(), &end);
        if (end == text.c_str() + text.size() && std::isfinite(value))
            return value;
    }
    return text;
}

/// The quote open at the end of `text` when `quote` was open at its start (0: none). Only the
/// new text is scanned, so a quote left open over a long file stays linear.
char quoteAfter(const std::string &text, char quote)
{
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (quote) {
            if (c == quote)
                quote = 0;
        } else if (c == '\'' || c == '"') {
            quote = c;
        } else if (c == '#' && (i == 0 || text[i - 1] == ' ' || text[i - 1] == '\t')) {
            return 0; // a comment: its quotes are words
        }
    }
    return quote;
}

/// Commands that train (the others are refused by what they are when they are the only one).
bool trains(const std::string &command)
{
    for (const char *c : {"swift sft", "swift pt", "swift rlhf", "megatron sft", "megatron pt", "megatron rlhf",
                          "llamafactory-cli train"})
        if (command == c)
            return true;
    return false;
}

bool isAssignment(const std::string &word)
{
    const std::size_t eq = word.find('=');
    if (eq == std::string::npos || eq == 0)
        return false;
    for (std::size_t i = 0; i < eq; ++i)
        if (!(std::isalnum(static_cast<unsigned char>(word[i])) || word[i] == '_'))
            return false;
    return !std::isdigit(static_cast<unsigned char>(word[0]));
}

} // namespace

std::optional<ShellCommand> readShellCommand(std::string_view text, const std::string &file)
{
    // Logical lines: a trailing backslash continues the line.
    std::vector<std::string> lines;
    std::string current;
    char quote = 0; // the quote open at the end of `current`
    std::size_t start = 0;
    while (start <= text.size()) {
        std::size_t end = text.find('\n', start);
        if (end == std::string_view::npos)
            end = text.size();
        std::string line(text.substr(start, end - start));
        start = end + 1;
        if (!line.empty() && line.back() == '\r')
            line.pop_back();
        const std::size_t first = line.find_first_not_of(" \t");
        if (first != std::string::npos && line[first] == '#' && current.empty())
            continue;
        if (!line.empty() && line.back() == '\\') {
            line.pop_back();
            quote = quoteAfter(line, quote);
            current += line + " ";
            continue;
        }
        quote = quoteAfter(line, quote);
        current += line;
        // A quote left open runs on to the next line, as in the shell (a multi-line prompt in
        // an assignment).
        if (quote) {
            current += "\n";
            if (current.size() > (std::size_t(16) << 20))
                throw TrainConfigError(file, "", "a quote that is not closed in the command");
            continue;
        }
        lines.push_back(current);
        current.clear();
        if (lines.size() > 100000)
            throw TrainConfigError(file, "", "more than 100,000 lines");
    }
    if (quote)
        throw TrainConfigError(file, "", "a quote that is not closed in the command");
    std::map<std::string, std::string> vars;
    std::map<std::string, std::string> exported; // `export NAME=value`: in every later command's environment
    std::optional<ShellCommand> found;
    for (const std::string &line : lines) {
        const std::vector<std::string> list = words(line, file);
        if (!list.empty() && list[0] == "export") {
            for (std::size_t w = 1; w < list.size(); ++w)
                if (isAssignment(list[w])) {
                    const std::size_t eq = list[w].find('=');
                    const std::string value = substitute(list[w].substr(eq + 1), vars).value_or("$(...)");
                    vars[list[w].substr(0, eq)] = exported[list[w].substr(0, eq)] = value;
                }
            continue;
        }
        std::size_t i = 0;
        std::map<std::string, std::string> env = exported;
        while (i < list.size() && isAssignment(list[i])) {
            const std::size_t eq = list[i].find('=');
            const auto value = substitute(list[i].substr(eq + 1), vars);
            env[list[i].substr(0, eq)] = value.value_or("$(...)");
            ++i;
        }
        if (i == list.size()) {
            // A plain assignment line: a variable for later lines.
            for (const auto &[name, value] : env)
                vars[name] = value;
            continue;
        }
        std::string command;
        if (list[i] == "swift" && i + 1 < list.size())
            command = "swift " + list[i + 1];
        else if ((list[i] == "llamafactory-cli" || list[i] == "lmf") && i + 1 < list.size())
            command = "llamafactory-cli " + list[i + 1];
        else if (list[i] == "megatron" && i + 1 < list.size())
            command = "megatron " + list[i + 1];
        if (command.empty())
            continue;
        // One command that trains is the run (an export or infer after it is not); a script of
        // commands that do not train is refused by its first.
        if (found && trains(found->command) && trains(command))
            throw TrainConfigError(file, "", "holds more than one training command (" + found->command + ", " + command +
                                                 "): give a script with one");
        if (found && (trains(found->command) || !trains(command)))
            continue;
        if (trains(command) && !command.starts_with("megatron") && i + 2 < list.size() && !list[i + 2].starts_with("--") &&
            (list[i + 2].ends_with(".yaml") || list[i + 2].ends_with(".yml") || list[i + 2].ends_with(".json")))
            throw TrainConfigError(file, "", command + " takes its arguments from " + quotedText(list[i + 2]) +
                                                 ": give that file as --train-config (and the GPU count the "
                                                 "script sets with --gpus)");
        ShellCommand cmd;
        cmd.command = command;
        cmd.env = env;
        cmd.tree = json::object();
        std::string key;
        // A command Headroom refuses by what it is (one that does not train, Megatron's) keeps
        // no arguments: its refusal says what it is, not what its arguments look like.
        const std::size_t argsEnd = trains(command) && !command.starts_with("megatron") ? list.size() : i + 2;
        for (std::size_t w = i + 2; w < argsEnd; ++w) {
            const std::string &word = list[w];
            if (word.starts_with("--") && word.size() > 2) {
                key = word.substr(2);
                std::string inline_;
                if (const std::size_t eq = key.find('='); eq != std::string::npos) {
                    inline_ = key.substr(eq + 1);
                    key.erase(eq);
                }
                if (const std::string problem = keyPathProblem(key); !problem.empty() || key.find('.') != std::string::npos)
                    throw TrainConfigError(file, "", "an argument that is not a plain --key (got " + quotedText(word) + ")");
                cmd.tree[key] = inline_.empty() ? json(true) : typedValue(inline_);
                if (!inline_.empty())
                    key.clear();
                continue;
            }
            if (key.empty())
                throw TrainConfigError(file, "", "a value with no --key before it (got " + quotedText(word) + ")");
            const auto value = substitute(word, vars);
            if (!value) {
                cmd.unresolved.push_back(key);
                cmd.tree.erase(key);
                key.clear();
                continue;
            }
            json &slot = cmd.tree[key];
            if (slot.is_boolean() && slot.get<bool>())
                slot = typedValue(*value);
            else if (slot.is_array())
                slot.push_back(typedValue(*value));
            else
                slot = json::array({slot, typedValue(*value)});
        }
        found = std::move(cmd);
    }
    return found;
}

} // namespace headroom::importers
