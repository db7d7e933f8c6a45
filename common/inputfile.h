// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QByteArray>
#include <QString>
#include <cstdint>
#include <exception>

namespace headroom {

/// An input file opened under the input policy: only a regular file (or a link to one) opens;
/// a folder, device, pipe (FIFO) or socket is refused before anything is read, and nothing
/// blocks. Errors are InputError (core/io/inputpolicy.h) without a key, saying what is wrong but
/// not repeating the path.
class InputFile
{
public:
    explicit InputFile(const QString &path);
    ~InputFile();
    InputFile(const InputFile &) = delete;
    InputFile &operator=(const InputFile &) = delete;

    /// The file's size when it was opened.
    std::uint64_t size() const { return m_size; }
    /// Up to `bytes` more bytes (fewer at the end of the file).
    QByteArray read(std::uint64_t bytes);
    /// The rest of the file; InputError when more than `maxBytes` bytes are actually read
    /// (whatever size the file reports).
    QByteArray readAll(std::uint64_t maxBytes);

private:
    int m_fd = -1;
    std::uint64_t m_size = 0;
};

/// The whole of a regular file of at most `maxBytes` bytes (see InputFile).
QByteArray readInputFile(const QString &path, std::uint64_t maxBytes);

/// What an exception from reading or estimating says to the user: the readers' own messages
/// (InputError, HfConfigError, SafetensorsError, OverflowError, ValidationError) as they are;
/// never a library's internals ("std::bad_alloc", "[json.exception...]").
QString errorMessage(const std::exception &error);

} // namespace headroom
