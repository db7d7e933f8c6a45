// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QMessageBox>

namespace headroom {

/// Help > About: what `headroom --version` prints (version, Qt, licence, the Qt Charts GPL
/// notice), with a button for Qt's own About.
class AboutDialog : public QMessageBox
{
    Q_OBJECT
public:
    explicit AboutDialog(QWidget *parent = nullptr);
};

} // namespace headroom
