use super::*;
use std::fs;

fn project(files: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for (name, text) in files {
        fs::write(dir.path().join(name), text).unwrap();
    }
    dir
}

#[test]
fn package_json_gives_languages_dependencies_scripts_and_engines() {
    let dir = project(&[
        (
            "package.json",
            r#"{"name":"todo","type":"module","packageManager":"pnpm@9.1.0",
            "engines":{"node":">=20"},
            "dependencies":{"express":"^4.18.2","zod":"3.23.0"},
            "devDependencies":{"typescript":"^5.4.0","vitest":"^1.6.0"},
            "scripts":{"build":"tsc -p .","test":"vitest run"}}"#,
        ),
        ("pnpm-lock.yaml", ""),
    ]);
    let stack = detect(dir.path());
    assert_eq!(stack.sources, vec!["package.json"]);
    let languages: Vec<_> = stack.languages.iter().map(|(l, _)| l.as_str()).collect();
    assert_eq!(languages, vec!["TypeScript", "JavaScript (ES modules)"]);
    assert_eq!(stack.runtime[0].name, "express");
    assert_eq!(stack.runtime[0].version.as_deref(), Some("^4.18.2"));
    assert_eq!(stack.development.len(), 2);
    assert_eq!(stack.commands[0].run, "pnpm build");
    assert_eq!(stack.commands[1].does.as_deref(), Some("vitest run"));
    let pins: Vec<_> = stack.toolchain.iter().map(|(p, _)| p.as_str()).collect();
    assert_eq!(pins, vec!["node >=20", "pnpm 9.1.0"]);
}

#[test]
fn cargo_pyproject_and_go_mod_are_read_from_their_structure() {
    let dir = project(&[
        (
            "Cargo.toml",
            "[workspace]\nmembers = [\"crates/core\"]\n[workspace.package]\nedition = \"2024\"\nrust-version = \"1.85\"\n[workspace.dependencies]\nserde = { version = \"1\", features = [\"derive\"] }\n[dev-dependencies]\ninsta = \"1\"\n",
        ),
        (
            "pyproject.toml",
            "[project]\nrequires-python = \">=3.11\"\ndependencies = [\"fastapi>=0.110\", \"uvicorn[standard]==0.29; python_version>'3.8'\"]\n[project.scripts]\nserve = \"app.main:run\"\n[tool.ruff]\nline-length = 100\n",
        ),
        (
            "go.mod",
            "module example.com/tide\n\ngo 1.22\n\nrequire (\n\tgithub.com/go-chi/chi/v5 v5.0.12\n\tgolang.org/x/sys v0.20.0 // indirect\n)\n",
        ),
    ]);
    let stack = detect(dir.path());
    let languages: Vec<_> = stack.languages.iter().map(|(l, _)| l.as_str()).collect();
    assert_eq!(languages, vec!["Rust (edition 2024)", "Python", "Go"]);
    let runtime: Vec<_> = stack
        .runtime
        .iter()
        .map(|d| format!("{} {}", d.name, d.version.as_deref().unwrap_or("-")))
        .collect();
    assert_eq!(
        runtime,
        vec![
            "serde 1",
            "fastapi >=0.110",
            "uvicorn ==0.29",
            "github.com/go-chi/chi/v5 v5.0.12"
        ]
    );
    let dev: Vec<_> = stack.development.iter().map(|d| d.name.as_str()).collect();
    assert_eq!(dev, vec!["insta"]);
    assert!(
        stack
            .layout
            .iter()
            .any(|(l, _)| l == "workspace member `crates/core`")
    );
    assert!(stack.tools.iter().any(|(t, _)| t == "ruff"));
    assert!(stack.commands.iter().any(|c| c.run == "serve"));
    let pins: Vec<_> = stack.toolchain.iter().map(|(p, _)| p.as_str()).collect();
    assert_eq!(pins, vec!["rust 1.85 or newer", "python >=3.11", "go 1.22"]);
}

#[test]
fn gemfile_composer_maven_gradle_cmake_and_make_are_read() {
    let dir = project(&[
        (
            "Gemfile",
            "source 'https://rubygems.org'\nruby '3.3.0'\ngem 'rails', '~> 7.1'\ngroup :test do\n  gem 'rspec'\nend\n",
        ),
        (
            "composer.json",
            r#"{"require":{"php":"^8.2","laravel/framework":"^11.0","ext-json":"*"},"require-dev":{"phpunit/phpunit":"^11"},"scripts":{"lint":"phpcs"}}"#,
        ),
        (
            "pom.xml",
            "<project><properties><java.version>21</java.version></properties><dependencies><dependency><groupId>org.springframework.boot</groupId><artifactId>spring-boot-starter-web</artifactId></dependency><dependency><groupId>org.junit.jupiter</groupId><artifactId>junit-jupiter</artifactId><version>5.10.0</version><scope>test</scope></dependency></dependencies></project>",
        ),
        (
            "build.gradle.kts",
            "plugins { kotlin(\"jvm\") version \"2.0.0\" }\ndependencies {\n    implementation(\"io.ktor:ktor-server-core:2.3.9\")\n    testImplementation(\"io.kotest:kotest-runner-junit5:5.8.0\")\n}\n",
        ),
        (
            "CMakeLists.txt",
            "cmake_minimum_required(VERSION 3.20)\nproject(tide LANGUAGES CXX)\nfind_package(Boost 1.80 REQUIRED)\nadd_executable(tide main.cpp)\nenable_testing()\n",
        ),
        (
            "Makefile",
            "CC := gcc\n.PHONY: all lint\nall: build\nlint:\n\tcargo clippy\n%.o: %.c\n",
        ),
    ]);
    let stack = detect(dir.path());
    let languages: Vec<_> = stack.languages.iter().map(|(l, _)| l.as_str()).collect();
    assert_eq!(languages, vec!["Ruby", "PHP", "Java", "Kotlin", "C++"]);
    let runtime: Vec<_> = stack.runtime.iter().map(|d| d.name.as_str()).collect();
    assert_eq!(
        runtime,
        vec![
            "rails",
            "laravel/framework",
            "org.springframework.boot:spring-boot-starter-web",
            "io.ktor:ktor-server-core",
            "Boost"
        ]
    );
    let dev: Vec<_> = stack.development.iter().map(|d| d.name.as_str()).collect();
    assert_eq!(
        dev,
        vec![
            "rspec",
            "phpunit/phpunit",
            "org.junit.jupiter:junit-jupiter",
            "io.kotest:kotest-runner-junit5"
        ]
    );
    let runs: Vec<_> = stack.commands.iter().map(|c| c.run.as_str()).collect();
    for run in [
        "composer run lint",
        "mvn test",
        "gradle test",
        "ctest --test-dir build",
        "make all",
        "make lint",
    ] {
        assert!(runs.contains(&run), "{run} in {runs:?}");
    }
    assert!(
        !runs.iter().any(|r| r.contains("CC") || r.contains('%')),
        "{runs:?}"
    );
    let pins: Vec<_> = stack.toolchain.iter().map(|(p, _)| p.as_str()).collect();
    assert_eq!(
        pins,
        vec!["ruby 3.3.0", "php ^8.2", "java 21", "cmake 3.20 or newer"]
    );
    assert!(stack.layout.iter().any(|(l, _)| l == "executable `tide`"));
}

#[test]
fn broken_manifests_are_reported_and_an_empty_project_has_no_stack() {
    let dir = project(&[("package.json", "{ not json"), ("Cargo.toml", "[package")]);
    let stack = detect(dir.path());
    assert!(stack.languages.is_empty());
    assert_eq!(stack.problems.len(), 2, "{:?}", stack.problems);
    assert!(stack.problems[0].starts_with("package.json: not valid JSON"));
    let empty = tempfile::tempdir().unwrap();
    assert!(detect(empty.path()).is_empty());
}

#[test]
fn requirements_txt_gives_names_and_specifiers_statement_by_statement() {
    let dir = project(&[(
        "requirements.txt",
        "# runtime\n-r base.txt\n--index-url https://pypi.example/simple\n\
         Django>=4.2,<5  # the web framework\nrequests[socks] == 2.31.0 ; python_version > \"3.8\"\n\
         numpy\\\n  ==1.26.4 \\\n  --hash=sha256:abc\n-e ./local-package\n./wheels/tool.whl\n\
         https://example.com/pkg.tar.gz\nmylib @ https://example.com/mylib.zip#egg=mylib\n\n",
    )]);
    let stack = detect(dir.path());
    assert_eq!(stack.sources, vec!["requirements.txt"]);
    let languages: Vec<_> = stack.languages.iter().map(|(l, _)| l.as_str()).collect();
    assert_eq!(languages, vec!["Python"]);
    let runtime: Vec<_> = stack
        .runtime
        .iter()
        .map(|d| format!("{} {}", d.name, d.version.as_deref().unwrap_or("-")))
        .collect();
    assert_eq!(
        runtime,
        vec![
            "Django >=4.2,<5",
            "requests == 2.31.0",
            "numpy ==1.26.4",
            "mylib -"
        ]
    );
    assert!(stack.development.is_empty());
    assert!(stack.runtime.iter().all(|d| d.source == "requirements.txt"));
}
