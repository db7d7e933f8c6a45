#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""The layering and size rules of the tree (docs/estimator.md, "Where the code lives"):
app/ -> ui/ -> common/ -> core/, core/ without Qt, the estimator's folders never include a
reader, files under 700 lines, folders of at most 40 files. Prints every breach; exit 1 if any."""
import os
import re
import sys

root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), '..')
include = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]', re.M)
# Which top-level folders a folder's sources may include from (besides itself).
allowed = {'core': {'core'}, 'common': {'core', 'common'}, 'ui': {'core', 'common', 'ui'},
           'app': {'core', 'common', 'ui', 'app'}}
# The estimator's folders inside core/, and the readers they must never include.
estimator = ('estimate/', 'training/', 'parallel/', 'serving/')
readers = ('io/', 'importers/', 'model/hfconfig', 'measure/')
policy = 'io/inputpolicy.h'  # the input policy's errors and limits, not a reader
headers = {}
for top in ('core', 'common', 'ui', 'app'):
    for folder, _, files in os.walk(os.path.join(root, top)):
        for name in files:
            if name.endswith('.h'):
                relative = os.path.relpath(os.path.join(folder, name), os.path.join(root, top))
                headers[relative] = top
breaches = []
for top in ('core', 'common', 'ui', 'app', 'tests', 'fuzz', 'bench', 'tools'):
    for folder, subfolders, files in os.walk(os.path.join(root, top)):
        subfolders[:] = [d for d in subfolders if d not in ('data', 'seeds')]
        sources = [f for f in files if f.endswith(('.cpp', '.h', '.in'))]
        where = os.path.relpath(folder, root)
        if len(files) > 40:
            breaches.append(f'{where}/: {len(files)} files (at most 40: give it sub-folders)')
        for name in sources:
            path = os.path.join(folder, name)
            relative = os.path.relpath(path, root)
            with open(path, encoding='utf-8') as source:
                text = source.read()
            lines = text.count('\n')
            if lines >= 700:
                breaches.append(f'{relative}: {lines} lines (under 700)')
            if top not in allowed:
                continue
            inside = os.path.relpath(path, os.path.join(root, top))
            for bracket, target in include.findall(text):
                if bracket == '<' and top == 'core' and re.match(r'Q[A-Z]|Qt', target):
                    breaches.append(f'{relative}: includes Qt ({target}); core/ is plain C++')
                if bracket != '"':
                    continue
                owner = headers.get(target)
                if owner is None and top == 'core':
                    owner = 'core' if os.path.exists(os.path.join(root, 'core', target)) else None
                if owner and owner not in allowed[top] and owner != top:
                    breaches.append(f'{relative}: includes {owner}/ header {target}')
                if top == 'core' and inside.startswith(estimator) and target.startswith(readers) \
                        and target != policy:
                    breaches.append(f'{relative}: estimator code includes the reader {target}')
for breach in breaches:
    print(breach)
sys.exit(1 if breaches else 0)
