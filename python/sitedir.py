"""Where a pure-Python package goes under an install prefix, for this
interpreter: the site directory under the prefix that the interpreter
already searches (Debian's /usr/local/lib/python3.X/dist-packages, the
user site ~/.local/lib/python3.X/site-packages), else the standard
<prefix>/lib/python3.X/site-packages.

    python3 python/sitedir.py PREFIX
"""

import os
import site
import sys
import sysconfig


def sitedir(prefix):
    prefix = os.path.abspath(prefix)
    searched = list(sys.path)
    if site.ENABLE_USER_SITE:
        searched.append(site.getusersitepackages())
    for p in searched:
        if not p or os.path.basename(p) not in ("site-packages", "dist-packages"):
            continue
        rel = os.path.relpath(os.path.abspath(p), prefix)
        if rel.split(os.sep)[0] in ("lib", "lib64"):
            return os.path.abspath(p)
    return sysconfig.get_path("purelib", "posix_prefix", vars={"base": prefix, "platbase": prefix})


if __name__ == "__main__":
    print(sitedir(sys.argv[1]))
