#include "io/interop/ShellScript.h"

#include <QRegularExpression>
#include <QSet>

#include <algorithm>
#include <iterator>
#include <limits>
#include <map>
#include <memory>
#include <optional>

namespace trainplan::io::shell {

namespace {

// --- words and operators --------------------------------------------------------------------------------

/// A piece of a word as written: unquoted (expanded and split), in single quotes (literal) or in double
/// quotes (expanded, not split).
struct Segment
{
    enum Kind { Plain, Single, Double } kind = Plain;
    QString text;
};

struct Token
{
    std::vector<Segment> segments; ///< empty for an operator
    QString op;                    ///< "\n", ";", "&&", "||", "|", "&", "(", ")"
    int line = 0;
    bool opensArray = false;       ///< NAME=( or NAME+=( : the words up to ")" are its elements
    bool hereDocument = false;     ///< <<WORD: its one segment is the body (Double: expanded; Single: <<'WORD')
    bool isOp() const { return segments.empty(); }
    /// The word as written, quotes dropped (keywords, assignment names).
    QString raw() const
    {
        QString s;
        for (const Segment &g : segments)
            s += g.text;
        return s;
    }
};

/// The end (one past) of the $-expression at `i`: ${...}, $((...)), $(...), $NAME, $1, $@.
qsizetype dollarEnd(const QString &t, qsizetype i)
{
    if (i + 1 >= t.size())
        return i + 1;
    const QChar n = t.at(i + 1);
    if (n == '{' || n == '(') {
        const QChar open = n, close = n == '{' ? QChar('}') : QChar(')');
        int depth = 0;
        for (qsizetype j = i + 1; j < t.size(); ++j) {
            depth += t.at(j) == open ? 1 : t.at(j) == close ? -1 : 0;
            if (depth == 0)
                return j + 1;
        }
        return t.size();
    }
    if (!(n.isLetterOrNumber() || n == '_'))
        return i + 2; // $@ $* $# $? $$
    qsizetype j = i + 1;
    if (n.isDigit())
        return j + 1;
    while (j < t.size() && (t.at(j).isLetterOrNumber() || t.at(j) == '_'))
        ++j;
    return j;
}

class Lexer
{
public:
    explicit Lexer(const QString &text, int firstLine) : m_t(text), m_line(firstLine) {}

    std::vector<Token> tokens()
    {
        while (m_i < m_t.size())
            step();
        endWord();
        return std::move(m_out);
    }

private:
    void step()
    {
        const QChar c = m_t.at(m_i);
        if (c == '\\' && m_i + 1 < m_t.size()) {
            if (m_t.at(m_i + 1) == '\n') // a continuation
                ++m_line;
            else
                append(Segment::Single, QString(m_t.at(m_i + 1)));
            m_i += 2;
        } else if (c == '\'') {
            const qsizetype end = m_t.indexOf('\'', m_i + 1);
            quoted(Segment::Single, end < 0 ? m_t.size() : end);
        } else if (c == '"') {
            quoted(Segment::Double, closingQuote());
        } else if (c == '$' || c == '`') {
            const qsizetype end = c == '$' ? dollarEnd(m_t, m_i) : std::max(m_t.indexOf('`', m_i + 1) + 1, m_i + 1);
            const QString text =
                c == '$' ? m_t.mid(m_i, end - m_i) : QStringLiteral("$(") + m_t.mid(m_i + 1, end - m_i - 2) + ')';
            m_line += int(m_t.mid(m_i, end - m_i).count('\n'));
            append(Segment::Plain, text);
            m_i = end;
        } else if (c == '<' && !m_hasWord && m_t.mid(m_i, 2) == QLatin1String("<<") &&
                   m_t.mid(m_i, 3) != QLatin1String("<<<")) {
            hereDocumentOperator();
        } else if (c == '#' && m_word.empty()) {
            const qsizetype end = m_t.indexOf('\n', m_i);
            m_i = end < 0 ? m_t.size() : end;
        } else if (c == '\n' || c == ';' || c == '&' || c == '|' || c == '(' || c == ')') {
            operatorAt(c);
        } else if (c.isSpace()) {
            endWord();
            ++m_i;
        } else {
            append(Segment::Plain, QString(c));
            ++m_i;
        }
    }

    /// <<WORD, <<-WORD, <<'WORD' or <<"WORD": a placeholder word whose body the lines after this one fill
    /// (hereDocumentBodies), up to a line that is WORD alone (tabs before it dropped with <<-).
    void hereDocumentOperator()
    {
        m_i += 2;
        const bool stripTabs = m_i < m_t.size() && m_t.at(m_i) == '-';
        m_i += stripTabs ? 1 : 0;
        while (m_i < m_t.size() && (m_t.at(m_i) == ' ' || m_t.at(m_i) == '\t'))
            ++m_i;
        QString delimiter;
        bool quotedDelimiter = false;
        while (m_i < m_t.size() && !m_t.at(m_i).isSpace() && !QStringLiteral(";|&<>()").contains(m_t.at(m_i))) {
            const QChar c = m_t.at(m_i++);
            if (c == '\'' || c == '"' || c == '\\')
                quotedDelimiter = true;
            else
                delimiter += c;
        }
        Token body{{{quotedDelimiter ? Segment::Single : Segment::Double, QString()}}, {}, m_line, false, true};
        m_out.push_back(std::move(body));
        m_pending.push_back({m_out.size() - 1, delimiter, stripTabs});
    }

    /// After the newline that ends a line with here-documents: each one's body, in order, the lines up to its
    /// delimiter (a body never runs: it is text for the command's standard input).
    void hereDocumentBodies()
    {
        for (const PendingBody &p : m_pending) {
            QString body;
            m_out[p.token].line = m_line;
            while (m_i < m_t.size()) {
                const qsizetype end = m_t.indexOf('\n', m_i) < 0 ? m_t.size() : m_t.indexOf('\n', m_i);
                QString line = m_t.mid(m_i, end - m_i);
                m_i = std::min(end + 1, m_t.size());
                ++m_line;
                if (p.stripTabs)
                    while (line.startsWith('\t'))
                        line.remove(0, 1);
                if (line == p.delimiter)
                    break;
                body += line + '\n';
            }
            m_out[p.token].segments.front().text = body;
        }
        m_pending.clear();
    }

    qsizetype closingQuote() const
    {
        for (qsizetype j = m_i + 1; j < m_t.size(); ++j) {
            if (m_t.at(j) == '\\')
                ++j;
            else if (m_t.at(j) == '"')
                return j;
        }
        return m_t.size();
    }

    void quoted(Segment::Kind kind, qsizetype end)
    {
        QString text = m_t.mid(m_i + 1, end - m_i - 1);
        if (kind == Segment::Double) {
            // A continuation (backslash, newline) after white space keeps its newline: the same words when the
            // value is split, and each flag of MODEL_ARGS="... --a 1 \<newline> --b 2" keeps its line. Inside a word
            // bash joins the two lines.
            static const QRegularExpression spaced(QStringLiteral("(\\s)\\\\\n"));
            text.replace(QStringLiteral("\\\""), QStringLiteral("\"")).replace(spaced, QStringLiteral("\\1\n"));
            text.replace(QStringLiteral("\\\n"), QString());
        }
        if (!m_hasWord)
            m_start = m_line;
        m_word.push_back({kind, text});
        m_hasWord = true;
        m_line += int(m_t.mid(m_i, end - m_i).count('\n'));
        m_i = end + 1;
    }

    void append(Segment::Kind kind, const QString &text)
    {
        if (!m_hasWord)
            m_start = m_line;
        m_hasWord = true;
        if (!m_word.empty() && m_word.back().kind == kind && kind == Segment::Plain)
            m_word.back().text += text;
        else
            m_word.push_back({kind, text});
    }

    void operatorAt(QChar c)
    {
        const QString raw = m_hasWord ? Token{m_word, {}, 0, false}.raw() : QString();
        if (c == '(' && m_hasWord && m_word.back().kind == Segment::Plain && raw.endsWith('=')) {
            endWord(true);
            ++m_i;
            return;
        }
        endWord();
        QString op(c);
        if ((c == '&' || c == '|' || c == ';') && m_i + 1 < m_t.size() && m_t.at(m_i + 1) == c)
            op += c;
        m_out.push_back({{}, op, m_line, false});
        if (c == '\n')
            ++m_line;
        m_i += op.size();
        if (c == '\n' && !m_pending.empty())
            hereDocumentBodies();
    }

    void endWord(bool opensArray = false)
    {
        if (m_hasWord)
            m_out.push_back({m_word, {}, m_start, opensArray});
        m_word.clear();
        m_hasWord = false;
        m_start = -1;
    }

    const QString &m_t;
    qsizetype m_i = 0;
    int m_line;
    int m_start = -1;
    bool m_hasWord = false;
    std::vector<Segment> m_word;
    std::vector<Token> m_out;
    struct PendingBody
    {
        std::size_t token; ///< the placeholder's index in m_out
        QString delimiter;
        bool stripTabs;
    };
    std::vector<PendingBody> m_pending; ///< here-documents whose bodies start after this line
};

// --- variables and expansion ----------------------------------------------------------------------------

struct Value
{
    std::vector<Field> elements; ///< a scalar has one
};

/// Whitespace-separated pieces of `text`, each with its line (`line` plus the newlines before it).
std::vector<Field> splitFields(const QString &text, int line)
{
    std::vector<Field> out;
    QString piece;
    int at = line, pieceLine = line;
    for (const QChar c : text) {
        if (c.isSpace()) {
            if (!piece.isEmpty())
                out.push_back({piece, pieceLine});
            piece.clear();
            at += c == '\n';
        } else {
            if (piece.isEmpty())
                pieceLine = at;
            piece += c;
        }
    }
    if (!piece.isEmpty())
        out.push_back({piece, pieceLine});
    return out;
}

/// What an expansion gives: its elements (several for "${A[@]}"), each with the line it was written on.
struct Expansion
{
    std::vector<Field> parts;
    bool many = false; ///< array elements: separate words even in double quotes
};

class Reader
{
public:
    /// The names the script's assignments set anywhere (NAME=, NAME+=, export/local/declare NAME=), in taken
    /// branches or not: unset where they are expanded, they are empty, not an environment's value.
    void setAssignedNames(const QString &text)
    {
        static const QRegularExpression assignment(
            QStringLiteral("(?:^|[;&|({]|\\bthen\\b|\\bdo\\b|\\belse\\b)\\s*(?:(?:export|local|declare|readonly)"
                           "(?:\\s+-\\w+)*\\s+)?([A-Za-z_][A-Za-z0-9_]*)\\+?="),
            QRegularExpression::MultilineOption);
        for (auto it = assignment.globalMatch(text); it.hasNext();)
            m_assignedSomewhere.insert(it.next().captured(1));
    }

    /// The positional parameters the script is run with ($1 ..., $#, $@), as `bash script ARGS...` sets them.
    void setArguments(const QStringList &arguments)
    {
        m_arguments = arguments;
        for (qsizetype i = 0; i < arguments.size(); ++i)
            m_vars[QString::number(i + 1)].elements = {Field{arguments[i], 0}};
    }

    std::vector<Command> run(const QString &text, int firstLine, int depth)
    {
        const std::vector<Token> tokens = Lexer(text, firstLine).tokens();
        std::size_t i = 0;
        while (i < tokens.size() && m_failure->error.isEmpty())
            i = statement(tokens, i, depth);
        return std::move(m_commands);
    }

    /// The first limit passed, shared with the readers of eval'ed strings.
    struct Failure
    {
        QString error;
        int line = 0;
        qsizetype total = 0; ///< characters of every command so far
    };
    std::shared_ptr<Failure> failure() const { return m_failure; }
    int missingArguments() const { return m_missingArguments; }
    const std::vector<HereDocument> &hereDocuments() const { return m_hereDocuments; }

    /// Every variable, its value split into words, ordered by the line of its first word.
    std::vector<Variable> variables() const
    {
        std::vector<Variable> out;
        for (const auto &[name, value] : m_vars) {
            Variable v{name, {}};
            for (const Field &element : value.elements) {
                const std::vector<Field> words = splitFields(element.text, element.line);
                v.words.insert(v.words.end(), words.begin(), words.end());
            }
            if (!v.words.empty())
                out.push_back(std::move(v));
        }
        std::stable_sort(out.begin(), out.end(), [](const Variable &a, const Variable &b) {
            return a.words.front().line < b.words.front().line;
        });
        return out;
    }

    /// True (and the failure recorded once) when `size` characters pass `limit`.
    bool over(qsizetype size, qsizetype limit, int line, const char *what)
    {
        if (size <= limit)
            return false;
        if (m_failure->error.isEmpty()) {
            m_failure->error =
                QStringLiteral("%1 expands to more than %2 MiB: an expansion this large is not a launch script")
                    .arg(QLatin1String(what))
                    .arg(limit >> 20);
            m_failure->line = line;
        }
        return true;
    }

private:
    // One simple command and the operator after it; returns the index after them.
    std::size_t statement(const std::vector<Token> &t, std::size_t i, int depth)
    {
        std::vector<const Token *> words;
        std::vector<std::pair<const Token *, std::vector<const Token *>>> arrays;
        for (; i < t.size() && !t[i].isOp(); ++i) {
            words.push_back(&t[i]);
            if (t[i].opensArray) { // its elements, across lines and comments, up to ")"
                const Token *owner = &t[i];
                std::vector<const Token *> elements;
                for (++i; i < t.size() && t[i].op != QLatin1String(")"); ++i)
                    if (!t[i].isOp())
                        elements.push_back(&t[i]);
                arrays.emplace_back(owner, elements);
                if (i >= t.size())
                    break;
            }
        }
        const QString op = i < t.size() ? t[i].op : QString();
        if (!words.empty())
            simple(words, arrays, op, depth);
        return i + 1;
    }

    /// The string of a shell's -c among the command's words (bash, sh or a path to either, its options, -c
    /// or a cluster of them ending in c, then the string); null if there is none.
    static const Field *shellCommandString(const std::vector<Field> &words)
    {
        static const QRegularExpression shell(QStringLiteral("^(.*/)?(ba)?sh$")), options(QStringLiteral("^-[a-z]+$"));
        for (std::size_t i = 0; i < words.size(); ++i) {
            if (!shell.match(words[i].text).hasMatch())
                continue;
            for (std::size_t j = i + 1; j + 1 < words.size() && options.match(words[j].text).hasMatch(); ++j)
                if (words[j].text.endsWith(QLatin1Char('c')))
                    return &words[j + 1];
        }
        return nullptr;
    }

    void simple(std::vector<const Token *> words,
                const std::vector<std::pair<const Token *, std::vector<const Token *>>> &arrays, const QString &op,
                int depth)
    {
        const QString first = words.front()->raw();
        if (control(first, words, op))
            return;
        if (!active())
            return;
        std::size_t k = 0;
        while (k < words.size() && assignment(*words[k], arrays))
            ++k;
        if (k < words.size() &&
            QStringList{"export", "local", "declare", "readonly", "typeset"}.contains(words[k]->raw())) {
            for (++k; k < words.size(); ++k)
                if (!words[k]->raw().startsWith('-'))
                    assignment(*words[k], arrays);
            return;
        }
        Command c;
        std::vector<HereDocument> documents;
        for (; k < words.size(); ++k) {
            if (words[k]->hereDocument) {
                const Token &body = *words[k];
                HereDocument d;
                d.text = body.segments.front().kind == Segment::Single ? body.raw() : joined(body).text;
                d.line = body.line;
                documents.push_back(std::move(d));
                continue;
            }
            for (Field &f : expandWord(*words[k])) {
                m_failure->total += f.text.size();
                c.words.push_back(std::move(f));
            }
        }
        // A here-document a shell or Slurm's sbatch reads is a script (sbatch <<EOF ... srun ... EOF); one
        // written to a file is that file's text (cat <<EOT > $DS_CONFIG).
        static const QRegularExpression runsInput(QStringLiteral("^(.*/)?(ba)?sh$|^sbatch$"));
        const bool script = !c.words.empty() && runsInput.match(c.words.front().text).hasMatch();
        for (HereDocument &d : m_piped) { // cat <<EOF | tee FILE: the body is what tee writes
            d.target = redirectTarget(c.words);
            m_hereDocuments.push_back(std::move(d));
        }
        m_piped.clear();
        for (HereDocument &d : documents) {
            d.target = redirectTarget(c.words);
            if (script && depth < 4)
                readInner(d.text, d.line, depth, false);
            if (d.target.isEmpty() && !script && op == QLatin1String("|"))
                m_piped.push_back(std::move(d));
            else
                m_hereDocuments.push_back(std::move(d));
        }
        if (c.words.empty() || over(m_failure->total, kMaxTotalCharacters, c.words.front().line, "the script"))
            return;
        sedPipeline(c.words, op);
        // A command string run by a shell (srun ... bash -x -c "$CMD", Megatron-LM's Slurm examples) is read as
        // the script it is, as eval's words are.
        if (const Field *command = shellCommandString(c.words); command && depth < 4) {
            readInner(command->text, command->line, depth, false); // a child shell: its variables stay there
            return;
        }
        if (c.words.front().text == QLatin1String("eval") && depth < 4) {
            QString joined;
            for (std::size_t w = 1; w < c.words.size(); ++w)
                joined += c.words[w].text + ' ';
            readInner(joined, c.words.front().line, depth, true);
            return;
        }
        m_commands.push_back(std::move(c));
    }

    /// sed "s/A/B/" FILE | sed "s/C/D/" ... > OUT: OUT is FILE with the substitutions (only literal patterns
    /// and replacements; any other sed program, or a chain that writes nowhere, is dropped).
    void sedPipeline(const std::vector<Field> &words, const QString &op)
    {
        if (words.front().text != QLatin1String("sed")) {
            m_sed.reset();
            return;
        }
        HereDocument chain = m_sed.value_or(HereDocument{});
        if (!m_sed)
            chain.line = words.front().line;
        bool literal = true;
        QString file;
        for (std::size_t i = 1; i < words.size(); ++i) {
            const QString &w = words[i].text;
            // The redirection ends sed's words: what follows is its target, one word in the script even where a
            // value the reader cannot know ($(nvidia-smi ...) in a file name) expanded into several.
            if (w.startsWith('>'))
                break;
            if (w == QLatin1String("-e"))
                continue;
            if (w.startsWith('-')) { // -i edits in place, -n prints nothing: not a writer of this kind
                literal = false;
                continue;
            }
            HereDocument::Substitution sub;
            if (sedSubstitution(w, sub))
                chain.substitutions.push_back(sub);
            else if (file.isEmpty())
                file = w;
            else
                literal = false;
        }
        if (!file.isEmpty()) {
            if (m_sed) // a second file in one pipeline: not a template chain
                literal = false;
            chain.source = file;
        }
        const QString target = redirectTarget(words);
        if (!literal || chain.source.isEmpty()) {
            m_sed.reset();
            return;
        }
        if (!target.isEmpty()) {
            chain.target = target;
            m_hereDocuments.push_back(std::move(chain));
            m_sed.reset();
        } else if (op == QLatin1String("|")) {
            m_sed = std::move(chain);
        } else {
            m_sed.reset();
        }
    }

    /// s/FROM/TO/ or s/FROM/TO/g with any delimiter, FROM and TO literal (no regular-expression characters, no &
    /// or backslash in TO).
    static bool sedSubstitution(const QString &w, HereDocument::Substitution &sub)
    {
        if (w.size() < 4 || w.at(0) != 's')
            return false;
        const QChar d = w.at(1);
        const QStringList parts = w.mid(2).split(d);
        if (parts.size() != 3 || (!parts[2].isEmpty() && parts[2] != QLatin1String("g")) || parts[0].isEmpty())
            return false;
        static const QRegularExpression special(QStringLiteral("[.*\\[\\]^$\\\\+?(){}|]"));
        if (parts[0].contains(special) || parts[1].contains('&') || parts[1].contains('\\'))
            return false;
        sub = {parts[0], parts[1], parts[2] == QLatin1String("g")};
        return true;
    }

    /// The file a command writes its standard output to: > FILE, >> FILE, >FILE, or tee's first file.
    static QString redirectTarget(const std::vector<Field> &words)
    {
        for (std::size_t i = 0; i < words.size(); ++i) {
            const QString &w = words[i].text;
            if ((w == QLatin1String(">") || w == QLatin1String(">>") || w == QLatin1String("tee")) &&
                i + 1 < words.size()) {
                std::size_t j = i + 1;
                while (w == QLatin1String("tee") && j + 1 < words.size() && words[j].text.startsWith('-'))
                    ++j;
                return words[j].text;
            }
            if (w.startsWith('>') && !w.startsWith(QLatin1String(">&")))
                return w.mid(w.startsWith(QLatin1String(">>")) ? 2 : 1);
        }
        return {};
    }

    /// A string run as a script, eval's (in this shell: what it assigns stays) or a child shell's; its commands
    /// are this script's, under the same limits.
    void readInner(const QString &text, int line, int depth, bool sameShell)
    {
        Reader inner;
        inner.m_failure = m_failure;
        inner.m_vars = m_vars;
        inner.m_assignedSomewhere = m_assignedSomewhere;
        if (sameShell)
            inner.m_arguments = m_arguments;
        for (Command &e : inner.run(text, line, depth + 1))
            m_commands.push_back(std::move(e));
        for (HereDocument &d : inner.m_hereDocuments)
            m_hereDocuments.push_back(std::move(d));
        m_missingArguments = std::max(m_missingArguments, inner.m_missingArguments);
        if (sameShell)
            m_vars = inner.m_vars;
    }

    // --- if / elif / else / fi: branches on tests of known values --------------------------------------

    struct Frame
    {
        bool outerActive = true;
        bool collecting = false;    ///< reading the condition (up to "then")
        std::optional<bool> known;  ///< the condition so far (nullopt: unknown)
        QString pendingOp;          ///< && or || before the next test
        bool taken = false;         ///< a branch was surely taken
        bool active = true;
        bool chainUnknown = false;  ///< a condition of this if so far could not be known
        bool uncertain = false;     ///< the branch being read may not be the one bash takes
        bool loop = false;          ///< while/until/for ... do ... done: the body, read once unless it never runs
        bool until = false;         ///< until: the body runs while its condition is false
    };

    bool active() const { return m_frames.empty() || (m_frames.back().active && !m_frames.back().collecting); }

    bool control(const QString &first, std::vector<const Token *> &words, const QString &op)
    {
        if (first == QLatin1String("if") || first == QLatin1String("elif")) {
            if (first == QLatin1String("if") || m_frames.empty()) // a stray elif opens one too
                m_frames.push_back({active(), true, std::nullopt, {}, false, false, false, false});
            else
                m_frames.back().collecting = true, m_frames.back().known.reset(), m_frames.back().pendingOp.clear();
            words.erase(words.begin());
            condition(words, op, true);
            return true;
        }
        // A loop's body is read once, as the branch of an if, unless its condition is surely false the first
        // time (an option-parsing while [[ $# -gt 0 ]] of a script run without arguments).
        if (first == QLatin1String("while") || first == QLatin1String("until") || first == QLatin1String("for") ||
            first == QLatin1String("select")) {
            const bool test = first == QLatin1String("while") || first == QLatin1String("until");
            m_frames.push_back({active(),
                                test,
                                std::nullopt,
                                {},
                                false,
                                active(),
                                false,
                                false,
                                true,
                                first == QLatin1String("until")});
            words.erase(words.begin());
            if (test)
                condition(words, op, true);
            return true;
        }
        const QLatin1String opens =
            !m_frames.empty() && m_frames.back().loop ? QLatin1String("do") : QLatin1String("then");
        if (!m_frames.empty() && m_frames.back().collecting && first != opens) {
            condition(words, op, false);
            return true;
        }
        if (first == QLatin1String("then") || first == QLatin1String("else") || first == QLatin1String("fi")) {
            branch(first);
            words.erase(words.begin());
            if (!words.empty() && active())
                simple(words, {}, op, 0);
            return true;
        }
        // Case headers and groups: their bodies are read once, in order.
        if (QStringList{"case", "esac", "{", "}", "function"}.contains(first))
            return true;
        if (first == QLatin1String("do") || first == QLatin1String("done")) {
            loopKeyword(first);
            words.erase(words.begin());
            if (!words.empty() && active())
                simple(words, {}, op, 0);
            return true;
        }
        return false;
    }

    void condition(const std::vector<const Token *> &words, const QString &op, bool firstTest)
    {
        Frame &f = m_frames.back();
        const std::optional<bool> value = evaluate(words);
        if (firstTest || f.pendingOp.isEmpty())
            f.known = value;
        else if (f.pendingOp == QLatin1String("&&"))
            f.known = (f.known == false || value == false) ? std::optional<bool>(false)
                      : (f.known && value)                 ? std::optional<bool>(true)
                                                           : std::nullopt;
        else
            f.known = (f.known == true || value == true) ? std::optional<bool>(true)
                      : (f.known && value)               ? std::optional<bool>(false)
                                                         : std::nullopt;
        f.pendingOp = op == QLatin1String("&&") || op == QLatin1String("||") ? op : QString();
    }

    /// do: the loop's body runs unless its condition is surely false (true for until); done: the loop ends.
    void loopKeyword(const QString &word)
    {
        if (m_frames.empty() || !m_frames.back().loop)
            return;
        Frame &f = m_frames.back();
        if (word == QLatin1String("done")) {
            m_frames.pop_back();
            return;
        }
        if (f.collecting) {
            f.collecting = false;
            const std::optional<bool> runs = f.known ? std::optional<bool>(*f.known != f.until) : std::nullopt;
            f.active = f.outerActive && runs.value_or(true);
        }
    }

    void branch(const QString &word)
    {
        if (m_frames.empty())
            return;
        Frame &f = m_frames.back();
        if (word == QLatin1String("fi")) {
            m_frames.pop_back();
            return;
        }
        // A branch is read unless a branch before it was surely taken or its own condition is surely false:
        // with an unknown condition both it and the branches after it are read, in order.
        if (word == QLatin1String("then")) {
            f.collecting = false;
            f.chainUnknown = f.chainUnknown || !f.known;
            f.uncertain = f.chainUnknown;
            f.active = f.outerActive && !f.taken && f.known.value_or(true);
            f.taken = f.taken || f.known.value_or(false);
            return;
        }
        f.uncertain = f.chainUnknown; // else
        f.active = f.outerActive && !f.taken;
    }

    /// A test command ([ ], [[ ]], test) of known values; nullopt when a value is unknown or it is not one.
    std::optional<bool> evaluate(const std::vector<const Token *> &words)
    {
        // As bash reads a test: a variable the script does not set is empty (an environment knob left out);
        // a positional parameter without a default stays unknown (the user's input).
        std::vector<QString> a;
        m_unsetIsEmpty = true;
        for (const Token *w : words)
            for (const Field &f : expandWord(*w, true))
                a.push_back(f.text);
        m_unsetIsEmpty = false;
        while (!a.empty() && (a.front() == QLatin1String("[") || a.front() == QLatin1String("[[") ||
                              a.front() == QLatin1String("test")))
            a.erase(a.begin());
        while (!a.empty() && (a.back() == QLatin1String("]") || a.back() == QLatin1String("]]")))
            a.pop_back();
        bool negate = false;
        if (!a.empty() && a.front() == QLatin1String("!"))
            negate = true, a.erase(a.begin());
        for (const QString &s : a)
            if (s.contains('$'))
                return std::nullopt;
        const std::optional<bool> r = test(a);
        return r && negate ? std::optional<bool>(!*r) : r;
    }

    static std::optional<bool> test(const std::vector<QString> &a)
    {
        if (a.size() == 2 && (a[0] == QLatin1String("-z") || a[0] == QLatin1String("-n")))
            return a[0] == QLatin1String("-z") ? a[1].isEmpty() : !a[1].isEmpty();
        if (a.size() == 1)
            return !a[0].isEmpty();
        if (a.size() == 0)
            return false;
        if (a.size() != 3)
            return std::nullopt;
        if (a[1] == QLatin1String("=") || a[1] == QLatin1String("=="))
            return a[0] == a[2];
        if (a[1] == QLatin1String("!="))
            return a[0] != a[2];
        bool okA = false, okB = false;
        const long long x = a[0].toLongLong(&okA), y = a[2].toLongLong(&okB);
        if (!okA || !okB)
            return std::nullopt;
        using Compare = bool (*)(long long, long long);
        static const std::map<QString, Compare> ops{{"-eq", [](long long p, long long q) { return p == q; }},
                                                    {"-ne", [](long long p, long long q) { return p != q; }},
                                                    {"-lt", [](long long p, long long q) { return p < q; }},
                                                    {"-le", [](long long p, long long q) { return p <= q; }},
                                                    {"-gt", [](long long p, long long q) { return p > q; }},
                                                    {"-ge", [](long long p, long long q) { return p >= q; }}};
        const auto it = ops.find(a[1]);
        return it == ops.end() ? std::nullopt : std::optional<bool>(it->second(x, y));
    }

    // --- assignments ------------------------------------------------------------------------------------

    bool assignment(const Token &word, const std::vector<std::pair<const Token *, std::vector<const Token *>>> &arrays)
    {
        static const QRegularExpression name(QStringLiteral("^([A-Za-z_][A-Za-z0-9_]*)(\\+?)="));
        if (word.segments.empty() || word.segments.front().kind != Segment::Plain)
            return false;
        const auto m = name.match(word.segments.front().text);
        if (!m.hasMatch())
            return false;
        if (uncertain())
            return uncertainAssignment(m.captured(1), word, arrays);
        Value &v = m_vars[m.captured(1)];
        const bool append = !m.captured(2).isEmpty();
        if (word.opensArray) {
            // The elements are expanded before the array changes: A=("${A[@]}" --more) keeps what A held.
            std::vector<Field> items;
            for (const auto &[owner, elements] : arrays)
                if (owner == &word)
                    for (const Token *e : elements)
                        for (Field &f : expandWord(*e)) {
                            m_failure->total += f.text.size();
                            items.push_back(std::move(f));
                        }
            Value &target = m_vars[m.captured(1)];
            if (!append)
                target.elements.clear();
            std::move(items.begin(), items.end(), std::back_inserter(target.elements));
            over(m_failure->total, kMaxTotalCharacters, word.line, "the script");
            return true;
        }
        Token rest = word;
        rest.segments.front().text.remove(0, m.capturedLength());
        const Field value = joined(rest);
        if (append && !v.elements.empty())
            v.elements.front().text += value.text;
        else
            v.elements = {value};
        over(v.elements.front().text.size(), kMaxWordCharacters, word.line, "a variable's value");
        return true;
    }

    bool uncertain() const
    {
        return std::any_of(m_frames.begin(), m_frames.end(), [](const Frame &f) { return f.uncertain; });
    }

    /// An assignment in a branch bash may not take: the variable keeps its value where the branch gives the
    /// same, and is unknown otherwise (a flag that uses it is then reported, never read from a guess).
    bool uncertainAssignment(const QString &name, const Token &word,
                             const std::vector<std::pair<const Token *, std::vector<const Token *>>> &arrays)
    {
        std::map<QString, Value> saved = m_vars;
        std::vector<Frame> frames;
        std::swap(frames, m_frames); // assign as if certain, then compare
        assignment(word, arrays);
        std::swap(frames, m_frames);
        const Value now = m_vars[name];
        m_vars = std::move(saved);
        const auto before = m_vars.find(name);
        const auto same = [&](const Value &a) {
            return a.elements.size() == now.elements.size() &&
                   std::equal(a.elements.begin(), a.elements.end(), now.elements.begin(),
                              [](const Field &x, const Field &y) { return x.text == y.text; });
        };
        if (before == m_vars.end() || !same(before->second))
            m_vars[name].elements = {Field{QStringLiteral("${%1}").arg(name), word.line}};
        return true;
    }

    /// A word expanded without splitting (an assignment's value).
    Field joined(const Token &word)
    {
        Field f{QString(), word.line};
        for (const Segment &s : word.segments) {
            if (s.kind == Segment::Single) {
                f.text += s.text;
                continue;
            }
            for (const Field &part : expandText(s.text, word.line).parts)
                f.text += part.text;
            if (over(f.text.size(), kMaxWordCharacters, word.line, "a variable's value"))
                break;
        }
        return f;
    }

    // --- expansion --------------------------------------------------------------------------------------

    /// The fields a word becomes: unquoted expansions split on white space, quoted ones whole, "${A[@]}" one
    /// field per element.
    std::vector<Field> expandWord(const Token &word, bool keepEmpty = false)
    {
        std::vector<Field> out;
        Field current{QString(), word.line};
        bool have = false;
        const auto flush = [&] {
            if (have)
                out.push_back(current);
            current = {QString(), word.line};
            have = false;
        };
        for (const Segment &s : word.segments) {
            if (s.kind == Segment::Single) {
                current.text += s.text, have = true;
                continue;
            }
            for (qsizetype i = 0; i < s.text.size();) {
                if (s.text.at(i) != '$') {
                    const qsizetype next =
                        std::min(s.text.indexOf('$', i) < 0 ? s.text.size() : s.text.indexOf('$', i), s.text.size());
                    const QString literal = s.text.mid(i, next - i);
                    if (s.kind == Segment::Double) {
                        current.text += literal, have = true;
                    } else {
                        const std::vector<Field> pieces = splitFields(literal, word.line);
                        if (!literal.isEmpty() && literal.front().isSpace())
                            flush();
                        for (std::size_t p = 0; p < pieces.size(); ++p) {
                            if (p > 0)
                                flush();
                            current.text += pieces[p].text, have = true;
                        }
                        if (!literal.isEmpty() && literal.back().isSpace())
                            flush();
                    }
                    i = next;
                    continue;
                }
                if (over(current.text.size(), kMaxWordCharacters, word.line, "a word") || !m_failure->error.isEmpty())
                    return {};
                const qsizetype end = dollarEnd(s.text, i);
                const Expansion e = expression(s.text.mid(i, end - i), word.line);
                i = end;
                if (s.kind == Segment::Double) {
                    for (std::size_t p = 0; p < e.parts.size(); ++p) {
                        if (p > 0)
                            flush();
                        current.text += e.parts[p].text, have = true;
                        current.line = e.parts[p].line;
                    }
                    have = have || !e.many;
                    continue;
                }
                for (const Field &part : e.parts) {
                    const std::vector<Field> pieces = splitFields(part.text, part.line);
                    if (e.many || (!part.text.isEmpty() && part.text.front().isSpace()))
                        flush();
                    for (std::size_t p = 0; p < pieces.size(); ++p) {
                        if (p > 0)
                            flush();
                        if (!have)
                            current.line = pieces[p].line;
                        current.text += pieces[p].text, have = true;
                    }
                    if (e.many || (!part.text.isEmpty() && part.text.back().isSpace()))
                        flush();
                }
            }
        }
        if (keepEmpty && !have && out.empty())
            have = true;
        flush();
        if (over(current.text.size(), kMaxWordCharacters, word.line, "a word"))
            return {};
        return out;
    }

    /// A double-quoted or assignment text expanded (no splitting).
    Expansion expandText(const QString &text, int line)
    {
        Expansion out;
        Field f{QString(), line};
        for (qsizetype i = 0; i < text.size();) {
            if (text.at(i) != '$') {
                f.text += text.at(i++);
                continue;
            }
            const qsizetype end = dollarEnd(text, i);
            const Expansion e = expression(text.mid(i, end - i), line);
            for (std::size_t p = 0; p < e.parts.size(); ++p)
                f.text += (p > 0 ? QStringLiteral(" ") : QString()) + e.parts[p].text;
            i = end;
            if (over(f.text.size(), kMaxWordCharacters, line, "a word") || !m_failure->error.isEmpty())
                break;
        }
        out.parts.push_back(f);
        return out;
    }

    /// One $-expression; unknown ones ($(...), an unset variable without a default) stay as written.
    Expansion expression(const QString &e, int line)
    {
        if (!m_failure->error.isEmpty())
            return {};
        if (m_nesting >= kMaxNesting) {
            m_failure->error =
                QStringLiteral("expansions nested more than %1 deep: not a launch script").arg(kMaxNesting);
            m_failure->line = line;
            return {};
        }
        ++m_nesting;
        Expansion out = nested(e, line);
        --m_nesting;
        return out;
    }

    Expansion nested(const QString &e, int line)
    {
        if (e.startsWith(QLatin1String("$((")))
            return arithmetic(e.mid(3, e.size() - 5), e, line);
        if (e.startsWith(QLatin1String("$(")) || e.size() < 2)
            return {{{e, line}}, false};
        if (e == QLatin1String("$@") || e == QLatin1String("$*") || e == QLatin1String("${@}") ||
            e == QLatin1String("${*}")) {
            Expansion all{{}, true};
            for (const QString &a : m_arguments)
                all.parts.push_back({a, line});
            return all;
        }
        if (e == QLatin1String("$#") || e == QLatin1String("${#}"))
            return {{{QString::number(m_arguments.size()), line}}, false};
        const bool braced = e.startsWith(QLatin1String("${"));
        const QString body = braced ? e.mid(2, e.size() - 3) : e.mid(1);
        return parameter(body, e, line);
    }

    Expansion parameter(const QString &body, const QString &written, int line)
    {
        static const QRegularExpression form(
            QStringLiteral("^(#?)([A-Za-z_][A-Za-z0-9_]*|[0-9]+)(?:\\[([^\\]]*)\\])?(?:(:?[-=+?])(.*))?$"),
            QRegularExpression::DotMatchesEverythingOption);
        const auto m = form.match(body);
        if (!m.hasMatch())
            return {{{written, line}}, false};
        const QString name = m.captured(2), index = m.captured(3), op = m.captured(4);
        QString word = m.captured(5); // ${1:-"a default"}: the quotes are the word's
        if (word.size() >= 2 && (word.front() == '"' || word.front() == '\'') && word.back() == word.front())
            word = word.mid(1, word.size() - 2);
        const auto it = m_vars.find(name);
        const bool set = it != m_vars.end();
        const bool empty = !set || it->second.elements.empty() ||
                           (it->second.elements.size() == 1 && it->second.elements.front().text.isEmpty());
        if (!m.captured(1).isEmpty()) { // ${#NAME}: its length; ${#NAME[@]}: its element count
            const qsizetype n = !set ? 0 : !index.isEmpty() ? qsizetype(it->second.elements.size())
                                     : it->second.elements.empty() ? 0 : it->second.elements.front().text.size();
            return {{{QString::number(n), line}}, false};
        }
        const bool useWord = op.startsWith(':') ? empty : !set;
        if (!op.isEmpty() && op.back() == '+')
            return useWord ? Expansion{} : expandText(word, line);
        if (!op.isEmpty() && (op.back() == '-' || op.back() == '=') && useWord) {
            Expansion d = expandText(word, line);
            if (op.back() == '=')
                m_vars[name].elements = {d.parts.front()};
            return d;
        }
        if (!set && name.front().isDigit() && name != QLatin1String("0") && op.isEmpty())
            m_missingArguments = std::max(m_missingArguments, name.toInt());
        // Unset: empty in a test, and where the script assigns the variable in a branch bash did not take
        // (Pai-Megatron-Patch's sp_options, set only for TP > 1); otherwise unknown, as written.
        if (!set)
            return (m_unsetIsEmpty || m_assignedSomewhere.contains(name)) && !name.front().isDigit()
                       ? Expansion{{{QString(), line}}, false}
                       : Expansion{{{written, line}}, false};
        if (index == QLatin1String("@") || index == QLatin1String("*"))
            return {it->second.elements, true};
        const int at = index.isEmpty() ? 0 : index.toInt();
        return {{at < int(it->second.elements.size()) ? it->second.elements[std::size_t(at)] : Field{QString(), line}},
                false};
    }

    /// $((...)): integers with + - * / % and parentheses, variables by name or $NAME.
    Expansion arithmetic(const QString &expr, const QString &written, int line)
    {
        static const QRegularExpression names(QStringLiteral("\\$?\\{?([A-Za-z_][A-Za-z0-9_]*)\\}?"));
        QString text;
        qsizetype from = 0;
        for (auto it = names.globalMatch(expr); it.hasNext();) { // one pass: values are numbers, never names
            const auto m = it.next();
            const auto var = m_vars.find(m.captured(1));
            bool number = false;
            if (var != m_vars.end() && !var->second.elements.empty())
                var->second.elements.front().text.trimmed().toLongLong(&number);
            if (!number)
                return {{{written, line}}, false};
            text += expr.mid(from, m.capturedStart() - from) + QLatin1Char('(') +
                    var->second.elements.front().text.trimmed() + QLatin1Char(')');
            from = m.capturedEnd();
        }
        text += expr.mid(from);
        qsizetype pos = 0;
        const std::optional<long long> v = sum(text, pos);
        if (!v || pos < text.size())
            return {{{written, line}}, false};
        return {{{QString::number(*v), line}}, false};
    }

    static void skip(const QString &t, qsizetype &p)
    {
        while (p < t.size() && t.at(p).isSpace())
            ++p;
    }

    // Integer arithmetic as bash's on 64 bits, except that what overflows, divides by zero or nests more than
    // kMaxNesting parentheses deep stays unknown (as written) instead of wrapping or exhausting the stack.
    static std::optional<long long> atom(const QString &t, qsizetype &p, int depth)
    {
        skip(t, p);
        if (p < t.size() && t.at(p) == '(') {
            ++p;
            const std::optional<long long> v = depth < kMaxNesting ? sum(t, p, depth + 1) : std::nullopt;
            skip(t, p);
            if (!v || p >= t.size() || t.at(p) != ')')
                return std::nullopt;
            ++p;
            return v;
        }
        const bool minus = p < t.size() && t.at(p) == '-';
        p += minus;
        const qsizetype start = p;
        while (p < t.size() && t.at(p).isDigit())
            ++p;
        bool ok = false;
        const long long v = t.mid(start, p - start).toLongLong(&ok);
        return ok ? std::optional<long long>(minus ? -v : v) : std::nullopt;
    }

    static std::optional<long long> apply(QChar op, long long a, long long b)
    {
        long long r = 0;
        switch (op.unicode()) {
        case '+': return __builtin_add_overflow(a, b, &r) ? std::nullopt : std::optional<long long>(r);
        case '-': return __builtin_sub_overflow(a, b, &r) ? std::nullopt : std::optional<long long>(r);
        case '*': return __builtin_mul_overflow(a, b, &r) ? std::nullopt : std::optional<long long>(r);
        default: break;
        }
        if (b == 0 || (a == std::numeric_limits<long long>::min() && b == -1))
            return std::nullopt;
        return op == '/' ? a / b : a % b;
    }

    static std::optional<long long> product(const QString &t, qsizetype &p, int depth)
    {
        std::optional<long long> v = atom(t, p, depth);
        for (skip(t, p); v && p < t.size() && QStringLiteral("*/%").contains(t.at(p)); skip(t, p)) {
            const QChar op = t.at(p++);
            const std::optional<long long> r = atom(t, p, depth);
            if (!r)
                return std::nullopt;
            v = apply(op, *v, *r);
        }
        return v;
    }

    static std::optional<long long> sum(const QString &t, qsizetype &p, int depth = 0)
    {
        std::optional<long long> v = product(t, p, depth);
        for (skip(t, p); v && p < t.size() && (t.at(p) == '+' || t.at(p) == '-'); skip(t, p)) {
            const QChar op = t.at(p++);
            const std::optional<long long> r = product(t, p, depth);
            if (!r)
                return std::nullopt;
            v = apply(op, *v, *r);
        }
        return v;
    }

    std::map<QString, Value> m_vars;
    /// Every name an assignment of the script's text sets, in any branch (assignedNames).
    QSet<QString> m_assignedSomewhere;
    QStringList m_arguments; ///< the positional parameters ($1 ... are also in m_vars)
    int m_missingArguments = 0; ///< the highest $N expanded without a value or a default
    std::vector<Frame> m_frames;
    bool m_unsetIsEmpty = false; ///< while reading a test
    std::vector<Command> m_commands;
    std::vector<HereDocument> m_hereDocuments;
    std::vector<HereDocument> m_piped; ///< here-documents piped to the next command
    std::optional<HereDocument> m_sed; ///< a sed pipeline being read (sedPipeline)
    std::shared_ptr<Failure> m_failure = std::make_shared<Failure>();
    int m_nesting = 0; ///< $-expressions being expanded inside one another
};

} // namespace

QString substituted(const QString &source, const std::vector<HereDocument::Substitution> &substitutions)
{
    QStringList lines = source.split('\n');
    for (QString &line : lines)
        for (const HereDocument::Substitution &sub : substitutions) {
            if (sub.global) {
                line.replace(sub.from, sub.to);
                continue;
            }
            if (const qsizetype at = line.indexOf(sub.from); at >= 0)
                line.replace(at, sub.from.size(), sub.to);
        }
    return lines.join('\n');
}

Script read(const QString &script, const QStringList &arguments)
{
    Reader reader;
    reader.setArguments(arguments);
    reader.setAssignedNames(script);
    Script out;
    out.commands = reader.run(script, 1, 0);
    out.error = reader.failure()->error;
    out.errorLine = reader.failure()->line;
    if (!out.error.isEmpty())
        out.commands.clear();
    else {
        out.variables = reader.variables();
        out.hereDocuments = reader.hereDocuments();
    }
    out.missingArguments = reader.missingArguments();
    return out;
}

} // namespace trainplan::io::shell
