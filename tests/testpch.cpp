// SPDX-License-Identifier: GPL-3.0-or-later
// The translation unit that builds the precompiled header every test reuses (HEADROOM_PCH).
