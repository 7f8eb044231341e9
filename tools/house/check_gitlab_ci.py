#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""check_gitlab_ci.py - the GitLab CI file parses and has the keys it needs.

    check_gitlab_ci.py FILE

No schema validator for .gitlab-ci.yml ships in Debian, so this checks
what GitLab itself rejects a file for (YAML that does not parse, a job
without `script`, a job in a stage that is not declared) and what this
project's CI promises (docs/ci.md): a job in debian:12 running make deps
and make test, keeping build/test/ as artifacts `when: always` with the
JUnit report.  One line per problem; exit status 0 when there is none.
Run it with /usr/bin/python3, where Debian's python3-yaml imports.
"""
import sys

try:
    import yaml
except ImportError:
    print("check_gitlab_ci: PyYAML is missing: install python3-yaml (make deps) and run this "
          "with /usr/bin/python3")
    sys.exit(2)

# Top-level keys that are settings, not jobs (GitLab CI/CD YAML syntax reference).
GLOBAL_KEYWORDS = {"default", "include", "stages", "variables", "workflow", "image",
                   "services", "cache", "before_script", "after_script", "spec"}
DEFAULT_STAGES = ["build", "test", "deploy"]  # what GitLab assumes without `stages:`
JUNIT_PATH = "build/test/junit.xml"


def problems_of(config):
    if not isinstance(config, dict):
        return ["the file is not a mapping of jobs and settings"]
    problems = []
    stages = config.get("stages", DEFAULT_STAGES)
    jobs = {k: v for k, v in config.items() if k not in GLOBAL_KEYWORDS and
            not str(k).startswith(".")}
    if not jobs:
        problems.append("no job (GitLab needs at least one)")
    for name, job in jobs.items():
        if not isinstance(job, dict):
            problems.append(f"job {name!r} is not a mapping")
            continue
        if "script" not in job and "trigger" not in job and "extends" not in job:
            problems.append(f"job {name!r} has no 'script' (GitLab requires one)")
        if job.get("stage", "test") not in stages:
            problems.append(f"job {name!r} is in stage {job.get('stage')!r}, not in {stages}")
    test = next((j for j in jobs.values() if isinstance(j, dict) and
                 "make test" in (j.get("script") or [])), None)
    if test is None:
        return problems + ["no job runs 'make test'"]
    artifacts = test.get("artifacts") or {}
    wanted = [(test.get("image", config.get("image")) == "debian:12", "image: debian:12"),
              ("make deps" in (test.get("script") or []), "script: make deps"),
              (artifacts.get("when") == "always", "artifacts: when: always"),
              ("build/test/" in (artifacts.get("paths") or []), "artifacts: paths: build/test/"),
              ((artifacts.get("reports") or {}).get("junit") == JUNIT_PATH,
               f"artifacts: reports: junit: {JUNIT_PATH}")]
    problems += [f"the make test job lacks '{what}'" for ok, what in wanted if not ok]
    return problems


def main():
    if len(sys.argv) != 2:
        print("usage: check_gitlab_ci.py FILE")
        return 2
    path = sys.argv[1]
    try:
        with open(path, encoding="utf-8") as f:
            config = yaml.safe_load(f)
    except OSError as e:
        print(f"check_gitlab_ci: cannot read {path}: {e.strerror}")
        return 1
    except yaml.YAMLError as e:
        print(f"check_gitlab_ci: {path}: not YAML: {e}".replace("\n", " "))
        return 1
    problems = problems_of(config)
    for problem in problems:
        print(f"check_gitlab_ci: {path}: {problem}")
    if not problems:
        print(f"check_gitlab_ci: {path}: ok")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
