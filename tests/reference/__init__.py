"""Deliberately simple, slow implementations of the rules, written only from
../shared/rules/*.md, to check the compiled games against."""
