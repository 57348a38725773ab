//! What a project is built with, read from its own manifests: the languages, the
//! dependencies it declares (runtime and development apart), the commands its manifests
//! define, the toolchain versions it pins and how it is laid out. Everything comes from a
//! file's structure (a table of dependencies, a scripts object, a `require` block), never
//! from a list of known names, so a project's own stack is described whatever it uses.
//! JSON and TOML manifests are parsed properly; the other formats (go.mod, Gemfile, Maven,
//! Gradle, CMake, Makefile, requirements.txt) are read line by line for the few statements
//! that declare something, and a line that does not fit is skipped.
mod requirements;

use std::collections::BTreeMap;
use std::path::Path;

use serde_json::Value as Json;
use toml::Value as Toml;

/// Manifests larger than this are not read (a generated lock file named like one).
const MANIFEST_BYTES: u64 = 1024 * 1024;

/// One declared dependency.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Dependency {
    pub name: String,
    /// The version requirement as written (`^4.18.2`, `>=2.0`), when there is one.
    pub version: Option<String>,
    /// The manifest that declares it (`package.json`).
    pub source: String,
}

/// A command a manifest defines (`npm run build`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ManifestCommand {
    /// What it is called in its manifest (`build`, `test`).
    pub name: String,
    /// The command line that runs it.
    pub run: String,
    /// What it does, as the manifest spells it, when it says.
    pub does: Option<String>,
    pub source: String,
}

/// The stack found in a project.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Stack {
    /// Manifests read, relative to the project.
    pub sources: Vec<String>,
    /// `Rust (edition 2021)`, with the manifest that says so.
    pub languages: Vec<(String, String)>,
    pub runtime: Vec<Dependency>,
    pub development: Vec<Dependency>,
    pub commands: Vec<ManifestCommand>,
    /// `node >=18` with its source.
    pub toolchain: Vec<(String, String)>,
    /// Parts of the project its manifests name: workspace members, build targets.
    pub layout: Vec<(String, String)>,
    /// Tools a manifest configures (`[tool.pytest]`): name and source.
    pub tools: Vec<(String, String)>,
    /// Manifests that could not be read or parsed, with why.
    pub problems: Vec<String>,
}

impl Stack {
    pub fn is_empty(&self) -> bool {
        self.sources.is_empty()
    }

    fn language(&mut self, name: impl Into<String>, source: &str) {
        let name = name.into();
        if !self.languages.iter().any(|(n, _)| *n == name) {
            self.languages.push((name, source.to_string()));
        }
    }

    fn dependency(&mut self, development: bool, name: &str, version: Option<&str>, source: &str) {
        let list = if development {
            &mut self.development
        } else {
            &mut self.runtime
        };
        if list.iter().any(|d| d.name == name && d.source == source) {
            return;
        }
        list.push(Dependency {
            name: name.to_string(),
            version: version
                .map(str::trim)
                .filter(|v| !v.is_empty() && *v != "*")
                .map(str::to_string),
            source: source.to_string(),
        });
    }

    fn command(&mut self, name: &str, run: String, does: Option<String>, source: &str) {
        if self.commands.iter().any(|c| c.run == run) {
            return;
        }
        self.commands.push(ManifestCommand {
            name: name.to_string(),
            run,
            does,
            source: source.to_string(),
        });
    }

    fn pin(&mut self, what: String, source: &str) {
        if !self.toolchain.iter().any(|(w, _)| *w == what) {
            self.toolchain.push((what, source.to_string()));
        }
    }
}

/// Reads one manifest's text (named as the second `&str`) into the stack.
type Reader = fn(&mut Stack, &Path, &str, &str);

/// Reads the manifests at the top of `project`.
pub fn detect(project: &Path) -> Stack {
    let mut stack = Stack::default();
    let readers: [(&str, Reader); 16] = [
        ("package.json", package_json),
        ("Cargo.toml", cargo_toml),
        ("pyproject.toml", pyproject_toml),
        ("requirements.txt", requirements::requirements_txt),
        ("go.mod", go_mod),
        ("Gemfile", gemfile),
        ("composer.json", composer_json),
        ("pom.xml", pom_xml),
        ("build.gradle", gradle),
        ("build.gradle.kts", gradle),
        ("CMakeLists.txt", cmake),
        ("Makefile", makefile),
        ("rust-toolchain.toml", rust_toolchain),
        ("rust-toolchain", rust_toolchain),
        (".tool-versions", tool_versions),
        (".nvmrc", version_file),
    ];
    for (name, read) in readers {
        let path = project.join(name);
        if !path.is_file() {
            continue;
        }
        match crate::io::text::read_text_limited(&path, MANIFEST_BYTES) {
            Ok(text) => {
                stack.sources.push(name.to_string());
                read(&mut stack, project, name, &text);
            }
            Err(e) => stack.problems.push(format!("{name}: {e}")),
        }
    }
    for name in [
        ".node-version",
        ".python-version",
        ".ruby-version",
        ".java-version",
        ".go-version",
    ] {
        let path = project.join(name);
        if let Ok(text) = crate::io::text::read_text_limited(&path, 4096) {
            stack.sources.push(name.to_string());
            version_file(&mut stack, project, name, &text);
        }
    }
    stack
}

fn json_str<'a>(value: &'a Json, key: &str) -> Option<&'a str> {
    value.get(key).and_then(Json::as_str)
}

fn json_deps(stack: &mut Stack, value: &Json, key: &str, development: bool, source: &str) {
    if let Some(map) = value.get(key).and_then(Json::as_object) {
        for (name, version) in map {
            stack.dependency(development, name, version.as_str(), source);
        }
    }
}

/// How the project runs a package.json script: the package manager it names, else the
/// one whose lock file is there, else npm.
fn script_runner(project: &Path, manifest: &Json) -> &'static str {
    let named = json_str(manifest, "packageManager").unwrap_or_default();
    for (manager, lock) in [
        ("pnpm", "pnpm-lock.yaml"),
        ("yarn", "yarn.lock"),
        ("bun", "bun.lockb"),
        ("bun", "bun.lock"),
    ] {
        if named.starts_with(manager) || project.join(lock).is_file() {
            return manager;
        }
    }
    "npm"
}

fn package_json(stack: &mut Stack, project: &Path, source: &str, text: &str) {
    let manifest: Json = match serde_json::from_str(text) {
        Ok(value) => value,
        Err(e) => {
            stack
                .problems
                .push(format!("{source}: not valid JSON ({e})"));
            return;
        }
    };
    let declares = |name: &str| {
        ["dependencies", "devDependencies", "peerDependencies"]
            .iter()
            .any(|key| manifest.get(key).and_then(|d| d.get(name)).is_some())
    };
    if declares("typescript") || project.join("tsconfig.json").is_file() {
        stack.language("TypeScript", source);
    }
    let module = match json_str(&manifest, "type") {
        Some("module") => "JavaScript (ES modules)",
        _ => "JavaScript",
    };
    stack.language(module, source);
    json_deps(stack, &manifest, "dependencies", false, source);
    json_deps(stack, &manifest, "peerDependencies", false, source);
    json_deps(stack, &manifest, "devDependencies", true, source);
    if let Some(engines) = manifest.get("engines").and_then(Json::as_object) {
        for (engine, version) in engines {
            if let Some(version) = version.as_str() {
                stack.pin(format!("{engine} {version}"), source);
            }
        }
    }
    if let Some(manager) = json_str(&manifest, "packageManager") {
        stack.pin(manager.replacen('@', " ", 1), source);
    }
    let runner = script_runner(project, &manifest);
    if let Some(scripts) = manifest.get("scripts").and_then(Json::as_object) {
        for (name, line) in scripts {
            let run = match (runner, name.as_str()) {
                ("npm", "test" | "start") => format!("npm {name}"),
                ("npm", _) => format!("npm run {name}"),
                (other, _) => format!("{other} {name}"),
            };
            stack.command(name, run, line.as_str().map(str::to_string), source);
        }
    }
    let workspaces = match manifest.get("workspaces") {
        Some(Json::Array(list)) => list.iter().filter_map(Json::as_str).collect(),
        Some(Json::Object(map)) => map
            .get("packages")
            .and_then(Json::as_array)
            .map(|l| l.iter().filter_map(Json::as_str).collect())
            .unwrap_or_default(),
        _ => Vec::new(),
    };
    for member in workspaces {
        stack
            .layout
            .push((format!("workspace packages `{member}`"), source.to_string()));
    }
    if let Some(bin) = manifest.get("bin") {
        let names: Vec<String> = match bin {
            Json::String(_) => json_str(&manifest, "name")
                .map(str::to_string)
                .into_iter()
                .collect(),
            Json::Object(map) => map.keys().cloned().collect(),
            _ => Vec::new(),
        };
        for name in names {
            stack
                .layout
                .push((format!("command `{name}`"), source.to_string()));
        }
    }
}

/// A TOML dependency table's entries: `name = "1.0"` or `name = { version = "1.0", … }`.
fn toml_deps(stack: &mut Stack, table: Option<&Toml>, development: bool, source: &str) {
    let Some(table) = table.and_then(Toml::as_table) else {
        return;
    };
    for (name, spec) in table {
        let version = match spec {
            Toml::String(v) => Some(v.as_str()),
            Toml::Table(t) => t.get("version").and_then(Toml::as_str),
            _ => None,
        };
        let workspace = spec
            .as_table()
            .and_then(|t| t.get("workspace"))
            .and_then(Toml::as_bool)
            == Some(true);
        let version = if workspace {
            Some("workspace")
        } else {
            version
        };
        stack.dependency(development, name, version, source);
    }
}

fn parse_toml(stack: &mut Stack, source: &str, text: &str) -> Option<Toml> {
    match toml::from_str::<Toml>(text) {
        Ok(value) => Some(value),
        Err(e) => {
            let first = e.to_string();
            let first = first.lines().next().unwrap_or_default().to_string();
            stack
                .problems
                .push(format!("{source}: not valid TOML ({first})"));
            None
        }
    }
}

fn cargo_toml(stack: &mut Stack, _project: &Path, source: &str, text: &str) {
    let Some(manifest) = parse_toml(stack, source, text) else {
        return;
    };
    let package = manifest.get("package");
    let workspace_package = manifest.get("workspace").and_then(|w| w.get("package"));
    let field = |key: &str| {
        package
            .and_then(|p| p.get(key))
            .and_then(Toml::as_str)
            .or_else(|| {
                workspace_package
                    .and_then(|p| p.get(key))
                    .and_then(Toml::as_str)
            })
    };
    match field("edition") {
        Some(edition) => stack.language(format!("Rust (edition {edition})"), source),
        None => stack.language("Rust", source),
    }
    if let Some(version) = field("rust-version") {
        stack.pin(format!("rust {version} or newer"), source);
    }
    for root in [Some(&manifest), manifest.get("workspace")]
        .into_iter()
        .flatten()
    {
        toml_deps(stack, root.get("dependencies"), false, source);
        toml_deps(stack, root.get("dev-dependencies"), true, source);
        toml_deps(stack, root.get("build-dependencies"), true, source);
    }
    if let Some(members) = manifest
        .get("workspace")
        .and_then(|w| w.get("members"))
        .and_then(Toml::as_array)
    {
        for member in members.iter().filter_map(Toml::as_str) {
            stack
                .layout
                .push((format!("workspace member `{member}`"), source.to_string()));
        }
    }
    if let Some(bins) = manifest.get("bin").and_then(Toml::as_array) {
        for name in bins
            .iter()
            .filter_map(|b| b.get("name"))
            .filter_map(Toml::as_str)
        {
            stack
                .layout
                .push((format!("binary `{name}`"), source.to_string()));
        }
    }
    stack.command("build", "cargo build".into(), None, source);
    stack.command("test", "cargo test".into(), None, source);
}

/// `requests>=2.31; python_version > "3.8"` → (`requests`, `>=2.31`).
fn pep508(spec: &str) -> (String, Option<String>) {
    let spec = spec.split(';').next().unwrap_or_default().trim();
    let end = spec
        .find(|c: char| !(c.is_alphanumeric() || matches!(c, '-' | '_' | '.')))
        .unwrap_or(spec.len());
    let (name, rest) = spec.split_at(end);
    let rest = rest.trim();
    // Extras (`uvicorn[standard]`) are part of what is installed, not of the version.
    let rest = match rest.strip_prefix('[') {
        Some(after) => after.split_once(']').map(|(_, v)| v.trim()).unwrap_or(""),
        None => rest,
    };
    (
        name.to_string(),
        (!rest.is_empty()).then(|| rest.to_string()),
    )
}

fn pyproject_toml(stack: &mut Stack, _project: &Path, source: &str, text: &str) {
    let Some(manifest) = parse_toml(stack, source, text) else {
        return;
    };
    stack.language("Python", source);
    let project = manifest.get("project");
    if let Some(python) = project
        .and_then(|p| p.get("requires-python"))
        .and_then(Toml::as_str)
    {
        stack.pin(format!("python {python}"), source);
    }
    let pep508_list = |stack: &mut Stack, list: Option<&Toml>, development: bool| {
        for spec in list
            .and_then(Toml::as_array)
            .into_iter()
            .flatten()
            .filter_map(Toml::as_str)
        {
            let (name, version) = pep508(spec);
            if !name.is_empty() {
                stack.dependency(development, &name, version.as_deref(), source);
            }
        }
    };
    pep508_list(stack, project.and_then(|p| p.get("dependencies")), false);
    for groups in [
        project.and_then(|p| p.get("optional-dependencies")),
        manifest.get("dependency-groups"),
    ] {
        for (_, list) in groups.and_then(Toml::as_table).into_iter().flatten() {
            pep508_list(stack, Some(list), true);
        }
    }
    let poetry = manifest.get("tool").and_then(|t| t.get("poetry"));
    if let Some(deps) = poetry
        .and_then(|p| p.get("dependencies"))
        .and_then(Toml::as_table)
    {
        for (name, spec) in deps {
            let version = match spec {
                Toml::String(v) => Some(v.as_str()),
                Toml::Table(t) => t.get("version").and_then(Toml::as_str),
                _ => None,
            };
            if name == "python" {
                if let Some(version) = version {
                    stack.pin(format!("python {version}"), source);
                }
            } else {
                stack.dependency(false, name, version, source);
            }
        }
    }
    for (_, group) in poetry
        .and_then(|p| p.get("group"))
        .and_then(Toml::as_table)
        .into_iter()
        .flatten()
    {
        toml_deps(stack, group.get("dependencies"), true, source);
    }
    toml_deps(
        stack,
        poetry.and_then(|p| p.get("dev-dependencies")),
        true,
        source,
    );
    for scripts in [
        project.and_then(|p| p.get("scripts")),
        poetry.and_then(|p| p.get("scripts")),
    ] {
        for (name, target) in scripts.and_then(Toml::as_table).into_iter().flatten() {
            stack.command(
                name,
                name.clone(),
                target.as_str().map(|t| format!("runs {t}")),
                source,
            );
        }
    }
    if let Some(backend) = manifest
        .get("build-system")
        .and_then(|b| b.get("build-backend"))
        .and_then(Toml::as_str)
    {
        stack
            .tools
            .push((format!("build backend {backend}"), source.to_string()));
    }
    for (tool, _) in manifest
        .get("tool")
        .and_then(Toml::as_table)
        .into_iter()
        .flatten()
    {
        stack.tools.push((tool.clone(), source.to_string()));
    }
}

fn go_mod(stack: &mut Stack, _project: &Path, source: &str, text: &str) {
    stack.language("Go", source);
    let mut in_require = false;
    for line in text.lines() {
        let (line, comment) = match line.split_once("//") {
            Some((code, comment)) => (code.trim(), comment.trim()),
            None => (line.trim(), ""),
        };
        if in_require {
            if line == ")" {
                in_require = false;
            } else if let Some((name, version)) = line.split_once(char::is_whitespace)
                && comment != "indirect"
            {
                // Indirect requirements are the dependencies' own, not the project's.
                stack.dependency(false, name, Some(version.trim()), source);
            }
            continue;
        }
        let mut words = line.split_whitespace();
        match (words.next(), words.next(), words.next()) {
            (Some("module"), Some(path), _) => stack
                .layout
                .push((format!("module `{path}`"), source.to_string())),
            (Some("go"), Some(version), _) => stack.pin(format!("go {version}"), source),
            (Some("toolchain"), Some(version), _) => {
                stack.pin(format!("toolchain {version}"), source)
            }
            (Some("require"), Some("("), _) => in_require = true,
            (Some("require"), Some(name), Some(version)) if comment != "indirect" => {
                stack.dependency(false, name, Some(version), source)
            }
            _ => {}
        }
    }
    stack.command("build", "go build ./...".into(), None, source);
    stack.command("test", "go test ./...".into(), None, source);
}

/// The quoted strings of a Ruby or Groovy call's arguments, in order.
fn quoted(args: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut rest = args;
    while let Some(start) = rest.find(['"', '\'']) {
        let quote = rest[start..].chars().next().unwrap_or('"');
        let after = &rest[start + 1..];
        match after.find(quote) {
            Some(end) => {
                out.push(&after[..end]);
                rest = &after[end + 1..];
            }
            None => break,
        }
    }
    out
}

fn gemfile(stack: &mut Stack, _project: &Path, source: &str, text: &str) {
    stack.language("Ruby", source);
    // Groups nest as `group :development, :test do` … `end`.
    let mut groups: Vec<bool> = Vec::new();
    for line in text.lines().map(str::trim) {
        if line.starts_with("group ") && line.ends_with(" do") {
            groups.push(true);
        } else if line.ends_with(" do") || line == "do" {
            groups.push(false);
        } else if line == "end" {
            groups.pop();
        } else if let Some(args) = line.strip_prefix("gem ") {
            let strings = quoted(args);
            if let Some(name) = strings.first() {
                let in_group = groups.iter().any(|g| *g) || args.contains("group:");
                stack.dependency(in_group, name, strings.get(1).copied(), source);
            }
        } else if let Some(args) = line.strip_prefix("ruby ")
            && let Some(version) = quoted(args).first()
        {
            stack.pin(format!("ruby {version}"), source);
        }
    }
}

fn composer_json(stack: &mut Stack, _project: &Path, source: &str, text: &str) {
    let manifest: Json = match serde_json::from_str(text) {
        Ok(value) => value,
        Err(e) => {
            stack
                .problems
                .push(format!("{source}: not valid JSON ({e})"));
            return;
        }
    };
    stack.language("PHP", source);
    for (key, development) in [("require", false), ("require-dev", true)] {
        for (name, version) in manifest
            .get(key)
            .and_then(Json::as_object)
            .into_iter()
            .flatten()
        {
            let version = version.as_str();
            if name == "php" {
                if let Some(version) = version {
                    stack.pin(format!("php {version}"), source);
                }
            } else if !name.starts_with("ext-") {
                stack.dependency(development, name, version, source);
            }
        }
    }
    for (name, line) in manifest
        .get("scripts")
        .and_then(Json::as_object)
        .into_iter()
        .flatten()
    {
        stack.command(
            name,
            format!("composer run {name}"),
            line.as_str().map(str::to_string),
            source,
        );
    }
}

/// The text of the first `<tag>…</tag>` in `xml`.
fn xml_tag<'a>(xml: &'a str, tag: &str) -> Option<&'a str> {
    let open = format!("<{tag}>");
    let close = format!("</{tag}>");
    let start = xml.find(&open)? + open.len();
    let end = xml[start..].find(&close)? + start;
    Some(xml[start..end].trim())
}

fn pom_xml(stack: &mut Stack, project: &Path, source: &str, text: &str) {
    stack.language("Java", source);
    if let Some(properties) = xml_tag(text, "properties") {
        for tag in [
            "java.version",
            "maven.compiler.release",
            "maven.compiler.source",
        ] {
            if let Some(version) = xml_tag(properties, tag) {
                stack.pin(format!("java {version}"), source);
                break;
            }
        }
    }
    let body = xml_tag(text, "dependencies").unwrap_or_default();
    for block in body.split("<dependency>").skip(1) {
        let block = block.split("</dependency>").next().unwrap_or_default();
        let (Some(group), Some(artifact)) =
            (xml_tag(block, "groupId"), xml_tag(block, "artifactId"))
        else {
            continue;
        };
        let development = xml_tag(block, "scope") == Some("test");
        stack.dependency(
            development,
            &format!("{group}:{artifact}"),
            xml_tag(block, "version"),
            source,
        );
    }
    if let Some(modules) = xml_tag(text, "modules") {
        for module in modules.split("<module>").skip(1) {
            let name = module.split("</module>").next().unwrap_or_default().trim();
            stack
                .layout
                .push((format!("module `{name}`"), source.to_string()));
        }
    }
    let mvn = if project.join("mvnw").is_file() {
        "./mvnw"
    } else {
        "mvn"
    };
    stack.command("package", format!("{mvn} package"), None, source);
    stack.command("test", format!("{mvn} test"), None, source);
}

fn gradle(stack: &mut Stack, project: &Path, source: &str, text: &str) {
    if source.ends_with(".kts") || text.contains("kotlin(") || text.contains("org.jetbrains.kotlin")
    {
        stack.language("Kotlin", source);
    } else {
        stack.language("Java or another JVM language", source);
    }
    let mut depth_in_dependencies: Option<usize> = None;
    let mut depth = 0usize;
    for line in text.lines().map(str::trim) {
        let opens = line.matches('{').count();
        let closes = line.matches('}').count();
        if line.starts_with("dependencies") && opens > 0 {
            depth_in_dependencies = Some(depth);
        } else if depth_in_dependencies.is_some() {
            // `implementation("group:name:1.0")`, `testImplementation 'group:name:1.0'`.
            let configuration: String = line
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric())
                .collect();
            if let Some(coordinates) = quoted(line).first()
                && coordinates.matches(':').count() >= 1
                && !configuration.is_empty()
            {
                let mut parts = coordinates.splitn(3, ':');
                let group = parts.next().unwrap_or_default();
                let name = parts.next().unwrap_or_default();
                let version = parts.next();
                let development = configuration.starts_with("test")
                    || configuration.contains("Test")
                    || configuration == "compileOnly"
                    || configuration.starts_with("kapt")
                    || configuration.starts_with("annotationProcessor");
                stack.dependency(development, &format!("{group}:{name}"), version, source);
            }
        }
        depth = (depth + opens).saturating_sub(closes);
        if let Some(start) = depth_in_dependencies
            && depth <= start
            && closes > 0
        {
            depth_in_dependencies = None;
        }
    }
    let gradle = if project.join("gradlew").is_file() {
        "./gradlew"
    } else {
        "gradle"
    };
    stack.command("build", format!("{gradle} build"), None, source);
    stack.command("test", format!("{gradle} test"), None, source);
}

/// `name(args)` calls of a CMake file, names lower-cased, arguments split on blanks.
fn cmake_calls(text: &str) -> Vec<(String, Vec<String>)> {
    let mut calls = Vec::new();
    let text: String = text
        .lines()
        .map(|l| l.split('#').next().unwrap_or_default())
        .collect::<Vec<_>>()
        .join("\n");
    let mut rest = text.as_str();
    while let Some(open) = rest.find('(') {
        let name: String = rest[..open]
            .chars()
            .rev()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect::<Vec<_>>()
            .into_iter()
            .rev()
            .collect();
        let Some(close) = rest[open..].find(')') else {
            break;
        };
        let args = rest[open + 1..open + close]
            .split_whitespace()
            .map(|a| a.trim_matches('"').to_string())
            .collect();
        if !name.is_empty() {
            calls.push((name.to_ascii_lowercase(), args));
        }
        rest = &rest[open + close + 1..];
    }
    calls
}

fn cmake(stack: &mut Stack, _project: &Path, source: &str, text: &str) {
    let mut languages = Vec::new();
    let mut tests = false;
    for (name, args) in cmake_calls(text) {
        match name.as_str() {
            "cmake_minimum_required" => {
                if let Some(at) = args.iter().position(|a| a == "VERSION")
                    && let Some(version) = args.get(at + 1)
                {
                    stack.pin(format!("cmake {version} or newer"), source);
                }
            }
            "project" => {
                if let Some(at) = args.iter().position(|a| a == "LANGUAGES") {
                    languages.extend(
                        args[at + 1..]
                            .iter()
                            .take_while(|a| a.chars().all(|c| c.is_ascii_uppercase()))
                            .map(|a| match a.as_str() {
                                "CXX" => "C++".to_string(),
                                other => other.to_string(),
                            }),
                    );
                }
            }
            "find_package" => {
                if let Some(package) = args.first() {
                    let version = args
                        .get(1)
                        .filter(|v| v.starts_with(|c: char| c.is_ascii_digit()));
                    stack.dependency(false, package, version.map(String::as_str), source);
                }
            }
            "add_executable" | "add_library" => {
                if let Some(target) = args.first() {
                    let kind = if name == "add_executable" {
                        "executable"
                    } else {
                        "library"
                    };
                    stack
                        .layout
                        .push((format!("{kind} `{target}`"), source.to_string()));
                }
            }
            "add_subdirectory" => {
                if let Some(folder) = args.first() {
                    stack
                        .layout
                        .push((format!("sub-project `{folder}/`"), source.to_string()));
                }
            }
            "enable_testing" => tests = true,
            _ => {}
        }
    }
    if languages.is_empty() {
        // CMake's default when project() names none.
        languages = vec!["C".to_string(), "C++".to_string()];
    }
    for language in languages {
        stack.language(language, source);
    }
    stack.command(
        "build",
        "cmake -S . -B build && cmake --build build".into(),
        None,
        source,
    );
    if tests {
        stack.command("test", "ctest --test-dir build".into(), None, source);
    }
}

fn makefile(stack: &mut Stack, _project: &Path, source: &str, text: &str) {
    for line in text.lines() {
        if line.starts_with(['\t', ' ', '#', '.']) {
            continue;
        }
        let Some((targets, after)) = line.split_once(':') else {
            continue;
        };
        // `NAME := value` and `NAME ::= value` are variables, not rules.
        if after.starts_with('=') || after.starts_with(":=") || targets.contains('=') {
            continue;
        }
        for target in targets.split_whitespace() {
            if target.contains(['%', '$', '/']) {
                continue;
            }
            stack.command(target, format!("make {target}"), None, source);
        }
    }
}

fn rust_toolchain(stack: &mut Stack, _project: &Path, source: &str, text: &str) {
    let channel = if source.ends_with(".toml") {
        toml::from_str::<Toml>(text).ok().and_then(|t| {
            t.get("toolchain")
                .and_then(|t| t.get("channel"))
                .and_then(Toml::as_str)
                .map(str::to_string)
        })
    } else {
        text.lines().next().map(|l| l.trim().to_string())
    };
    if let Some(channel) = channel.filter(|c| !c.is_empty()) {
        stack.pin(format!("rust toolchain {channel}"), source);
    }
}

/// asdf's `.tool-versions`: one `tool version` a line.
fn tool_versions(stack: &mut Stack, _project: &Path, source: &str, text: &str) {
    for line in text.lines().map(str::trim) {
        if line.starts_with('#') || line.is_empty() {
            continue;
        }
        let mut words = line.split_whitespace();
        if let (Some(tool), Some(version)) = (words.next(), words.next()) {
            stack.pin(format!("{tool} {version}"), source);
        }
    }
}

/// `.nvmrc`, `.python-version` and their kind: the version on their first line, for the
/// tool their name says.
fn version_file(stack: &mut Stack, _project: &Path, source: &str, text: &str) {
    let tool = match source {
        ".nvmrc" | ".node-version" => "node",
        other => other.trim_start_matches('.').trim_end_matches("-version"),
    };
    if let Some(version) = text.lines().map(str::trim).find(|l| !l.is_empty()) {
        stack.pin(format!("{tool} {version}"), source);
    }
}

/// The dependencies of each manifest, in declaration order, at most `limit` in all: the
/// rest counted per manifest.
pub fn shown(deps: &[Dependency], limit: usize) -> (Vec<&Dependency>, BTreeMap<&str, usize>) {
    let shown: Vec<&Dependency> = deps.iter().take(limit).collect();
    let mut left = BTreeMap::new();
    for dep in deps.iter().skip(limit) {
        *left.entry(dep.source.as_str()).or_insert(0) += 1;
    }
    (shown, left)
}

#[cfg(test)]
mod tests;
