// SPDX-License-Identifier: GPL-3.0-or-later
// Writing test files: shared by the tests that need input files.
#pragma once

#include <QByteArray>
#include <QFile>
#include <QTemporaryDir>

namespace headroom::test {

/// Writes `content` to `name` inside `dir` and returns the path (empty content: an empty file).
inline QString writeFile(const QTemporaryDir &dir, const char *name, const QByteArray &content)
{
    const QString path = dir.filePath(QString::fromLatin1(name));
    QFile file(path);
    if (file.open(QIODevice::WriteOnly))
        file.write(content);
    return path;
}

} // namespace headroom::test
