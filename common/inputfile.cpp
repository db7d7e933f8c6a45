// SPDX-License-Identifier: GPL-3.0-or-later
#include "inputfile.h"

#include "scenario/checked.h"
#include "model/hfconfig.h"
#include "importers/trainimport.h"
#include "io/inputpolicy.h"
#include "io/safetensors.h"
#include "scenario/units.h"
#include "accuracy/validation.h"

#include <QCoreApplication>
#include <QFile>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <new>
#include <sys/stat.h>
#include <unistd.h>

namespace headroom {

namespace {

constexpr std::uint64_t kChunkBytes = 64 * 1024;

std::string systemError(int error)
{
    return std::strerror(error);
}

/// Why a file of this type is not read; empty for a regular file.
std::string refusal(mode_t mode)
{
    if (S_ISREG(mode))
        return {};
    if (S_ISDIR(mode))
        return "is a folder, not a file";
    if (S_ISCHR(mode) || S_ISBLK(mode))
        return "is a device, not a regular file";
    if (S_ISFIFO(mode))
        return "is a pipe (FIFO), not a regular file";
    if (S_ISSOCK(mode))
        return "is a socket, not a regular file";
    return "is not a regular file";
}

} // namespace

InputFile::InputFile(const QString &path)
{
    const QByteArray name = QFile::encodeName(path);
    if (name.isEmpty())
        throw InputError("", "cannot open: no file name");
    // Look before opening: opening a device or a FIFO can block or have effects of its own.
    struct stat info {};
    if (::stat(name.constData(), &info) != 0)
        throw InputError("", "cannot open: " + systemError(errno));
    if (const std::string why = refusal(info.st_mode); !why.empty())
        throw InputError("", why);
    // O_NONBLOCK: should the path be swapped for a FIFO in between, opening it does not wait
    // for a writer (and fstat below refuses it).
    do
        m_fd = ::open(name.constData(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    while (m_fd < 0 && errno == EINTR);
    if (m_fd < 0)
        throw InputError("", "cannot open: " + systemError(errno));
    if (::fstat(m_fd, &info) != 0 || !refusal(info.st_mode).empty()) {
        const std::string why = refusal(info.st_mode);
        ::close(m_fd);
        m_fd = -1;
        throw InputError("", why.empty() ? "cannot open: " + systemError(errno) : why);
    }
    m_size = info.st_size > 0 ? static_cast<std::uint64_t>(info.st_size) : 0;
}

InputFile::~InputFile()
{
    if (m_fd >= 0)
        ::close(m_fd);
}

QByteArray InputFile::read(std::uint64_t bytes)
{
    QByteArray out;
    while (std::uint64_t(out.size()) < bytes) {
        const std::uint64_t want = std::min(kChunkBytes, bytes - std::uint64_t(out.size()));
        const qsizetype had = out.size();
        out.resize(had + qsizetype(want));
        const ssize_t got = ::read(m_fd, out.data() + had, std::size_t(want));
        if (got < 0 && errno == EINTR) {
            out.resize(had);
            continue;
        }
        if (got < 0) {
            // EAGAIN: a file that would block (a /proc file waiting for events) is no input.
            const int error = errno;
            throw InputError("", error == EAGAIN || error == EWOULDBLOCK
                                     ? "cannot be read without waiting: not a regular file"
                                     : "cannot read: " + systemError(error));
        }
        out.resize(had + qsizetype(got));
        if (got == 0)
            break;
    }
    return out;
}

QByteArray InputFile::readAll(std::uint64_t maxBytes)
{
    // One byte past the limit tells a file at the limit from a larger one.
    QByteArray bytes = read(maxBytes + 1);
    if (std::uint64_t(bytes.size()) > maxBytes)
        throw InputError("", "larger than the " + groupDigits(maxBytes) + "-byte limit for this "
                                                                           "kind of file");
    return bytes;
}

QByteArray readInputFile(const QString &path, std::uint64_t maxBytes)
{
    InputFile file(path);
    return file.readAll(maxBytes);
}

QString errorMessage(const std::exception &error)
{
    if (dynamic_cast<const std::bad_alloc *>(&error))
        return QCoreApplication::translate("inputfile", "not enough memory to read this input");
    if (dynamic_cast<const InputError *>(&error) || dynamic_cast<const OverflowError *>(&error) ||
        dynamic_cast<const HfConfigError *>(&error) || dynamic_cast<const SafetensorsError *>(&error) ||
        dynamic_cast<const ValidationError *>(&error) || dynamic_cast<const TrainConfigError *>(&error))
        return QString::fromStdString(error.what());
    // Anything else is a reader's bug: say so without the library's words.
    return QCoreApplication::translate(
        "inputfile", "cannot read this input (an unexpected error; please report it with the file)");
}

} // namespace headroom
