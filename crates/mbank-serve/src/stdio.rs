//! The line framing of `mbank mcp`: one JSON-RPC message per line on stdin and stdout.
//! rmcp's own stdio transport ignores a line that is not JSON and drops one over its size
//! limit without a word, so a client waits forever for the answer; here a malformed or
//! truncated line is answered with a JSON-RPC parse error (-32700), an oversized one with
//! an invalid-request error (-32600) naming the limit, and the server keeps serving.
//! Reading is bounded (an oversized line is skipped, never buffered) and safe to cancel
//! (rmcp polls `receive` inside a `select!`): a partial line stays in the transport.
use std::borrow::Cow;
use std::io::Write as _;

use rmcp::RoleServer;
use rmcp::model::{ClientRequest, JsonRpcMessage};
use rmcp::service::{RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::Transport;
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::mpsc;

/// The largest message accepted on stdin: well above the biggest memory an Infinity store
/// may hold, JSON-escaped, so a memory too big for the store still reaches its tool, which
/// refuses it at once naming the store's limit; anything longer is answered here.
pub const MAX_MESSAGE_BYTES: usize = 4 * mbank_core::formats::infinity::store::MAX_STORE_BYTES;

/// Messages waiting for stdout; sending waits when the client does not read.
const OUTPUT_QUEUE: usize = 64;

use super::jsonrpc::{self, INVALID_REQUEST, PARSE_ERROR};

/// What one bounded read of a line found.
enum LineRead {
    /// A whole line is in `line`.
    Line,
    /// The line went over the limit; the rest of it is being skipped.
    Oversized,
    Eof,
    Io(std::io::Error),
}

/// The stdio transport: validated lines in, whole lines out through one writer task.
pub struct LineTransport<R> {
    reader: BufReader<R>,
    line: Vec<u8>,
    max: usize,
    /// Skipping the rest of an oversized line.
    discarding: bool,
    /// An error reply still to queue (kept here, so a cancelled `receive` loses none).
    pending_reply: Option<Vec<u8>>,
    eof: bool,
    output: mpsc::Sender<Vec<u8>>,
}

/// Starts the writer task for `writer`; the transport and the task's handle (it ends, all
/// output written, once the transport is dropped).
pub fn transport<R, W>(
    reader: R,
    writer: W,
    max: usize,
) -> (LineTransport<R>, tokio::task::JoinHandle<()>)
where
    R: AsyncRead + Unpin + Send + 'static,
    W: AsyncWrite + Unpin + Send + 'static,
{
    let (output, queue) = mpsc::channel(OUTPUT_QUEUE);
    let writer_task = tokio::spawn(write_lines(writer, queue));
    (
        LineTransport {
            reader: BufReader::with_capacity(64 * 1024, reader),
            line: Vec::new(),
            max,
            discarding: false,
            pending_reply: None,
            eof: false,
            output,
        },
        writer_task,
    )
}

/// Writes queued lines in order, flushing whenever the queue runs dry.
async fn write_lines<W: AsyncWrite + Unpin>(mut writer: W, mut queue: mpsc::Receiver<Vec<u8>>) {
    while let Some(line) = queue.recv().await {
        if writer.write_all(&line).await.is_err() {
            return;
        }
        while let Ok(more) = queue.try_recv() {
            if writer.write_all(&more).await.is_err() {
                return;
            }
        }
        if writer.flush().await.is_err() {
            return;
        }
    }
}

fn error_line(id: Value, code: i64, message: String) -> Vec<u8> {
    let mut line = json!({
        "jsonrpc": "2.0",
        "id": id,
        "error": {"code": code, "message": message},
    })
    .to_string()
    .into_bytes();
    line.push(b'\n');
    line
}

fn reply_line(reply: &Value) -> Vec<u8> {
    let mut line = reply.to_string().into_bytes();
    line.push(b'\n');
    line
}

/// A `tools/call` rmcp could not type (its params or arguments not objects) reaches it as
/// a custom request, which it answers -32601; it is answered -32602 here instead.
fn checked_tool_call(
    message: RxJsonRpcMessage<RoleServer>,
) -> Result<Option<RxJsonRpcMessage<RoleServer>>, Vec<u8>> {
    if let JsonRpcMessage::Request(request) = &message
        && let ClientRequest::CustomRequest(custom) = &request.request
        && custom.method == jsonrpc::TOOLS_CALL
        && let Some(problem) = jsonrpc::tool_call_params_problem(custom.params.as_ref())
    {
        let id = serde_json::to_value(&request.id).unwrap_or(Value::Null);
        return Err(reply_line(&jsonrpc::error(
            id,
            jsonrpc::INVALID_PARAMS,
            problem,
            None,
        )));
    }
    Ok(Some(message))
}

/// What a complete line holds: a message for rmcp, nothing (an ignored notification),
/// or the error reply to send.
fn parse_line(line: &[u8]) -> Result<Option<RxJsonRpcMessage<RoleServer>>, Vec<u8>> {
    const BOM: &[u8] = b"\xEF\xBB\xBF";
    let line = line.strip_prefix(BOM).unwrap_or(line);
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    if line.iter().all(u8::is_ascii_whitespace) {
        return Ok(None);
    }
    let error = match serde_json::from_slice::<RxJsonRpcMessage<RoleServer>>(line) {
        Ok(message) => return checked_tool_call(message),
        Err(e) => e,
    };
    let value = match serde_json::from_slice::<Value>(line) {
        Ok(value) => value,
        Err(e) => {
            return Err(error_line(
                Value::Null,
                PARSE_ERROR,
                format!("Parse error: the line is not complete JSON ({e})"),
            ));
        }
    };
    if let Some(reply) = jsonrpc::invalid_tool_call(&value) {
        return Err(reply_line(&reply));
    }
    let id = value.get("id").cloned();
    // A notification is never answered (JSON-RPC), and clients send some that are not
    // MCP's (rmcp ignores those too).
    if id.is_none() && value.get("method").is_some_and(Value::is_string) {
        return Ok(None);
    }
    let id = id
        .filter(|id| id.is_string() || id.is_number())
        .unwrap_or(Value::Null);
    Err(error_line(
        id,
        INVALID_REQUEST,
        format!("Invalid request: not a JSON-RPC message of MCP ({error})"),
    ))
}

impl<R: AsyncRead + Unpin + Send> LineTransport<R> {
    /// Reads one line into `self.line`, never holding more than `max` bytes of it.
    async fn read_line(&mut self) -> LineRead {
        loop {
            let available = match self.reader.fill_buf().await {
                Ok(available) => available,
                Err(e) => return LineRead::Io(e),
            };
            if available.is_empty() {
                return LineRead::Eof;
            }
            let newline = available.iter().position(|b| *b == b'\n');
            let part = newline.unwrap_or(available.len());
            let used = newline.map_or(part, |n| n + 1);
            if self.discarding {
                self.reader.consume(used);
                if newline.is_some() {
                    self.discarding = false;
                }
                continue;
            }
            if self.line.len() + part > self.max {
                self.line = Vec::new();
                self.discarding = newline.is_none();
                self.reader.consume(used);
                return LineRead::Oversized;
            }
            self.line.extend_from_slice(&available[..part]);
            self.reader.consume(used);
            if newline.is_some() {
                return LineRead::Line;
            }
        }
    }
}

impl<R: AsyncRead + Unpin + Send + 'static> Transport<RoleServer> for LineTransport<R> {
    type Error = std::io::Error;

    fn name() -> Cow<'static, str> {
        "mbank stdio".into()
    }

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleServer>,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        let output = self.output.clone();
        async move {
            let mut line = serde_json::to_vec(&item).map_err(std::io::Error::other)?;
            line.push(b'\n');
            output
                .send(line)
                .await
                .map_err(|_| std::io::Error::new(std::io::ErrorKind::BrokenPipe, "stdout closed"))
        }
    }

    async fn receive(&mut self) -> Option<RxJsonRpcMessage<RoleServer>> {
        loop {
            if self.pending_reply.is_some() {
                let permit = self.output.reserve().await.ok()?;
                if let Some(reply) = self.pending_reply.take() {
                    permit.send(reply);
                }
            }
            if self.eof {
                return None;
            }
            match self.read_line().await {
                LineRead::Line => {}
                LineRead::Oversized => {
                    self.pending_reply = Some(error_line(
                        Value::Null,
                        INVALID_REQUEST,
                        format!(
                            "Invalid request: the message is over {} bytes, the most mbank \
                             mcp reads; it was skipped",
                            self.max
                        ),
                    ));
                    continue;
                }
                // A last line without its newline is still a line.
                LineRead::Eof if !self.line.is_empty() => self.eof = true,
                LineRead::Eof => return None,
                LineRead::Io(e) => {
                    let message = mbank_core::markup::sanitize::line(&e.to_string()).into_owned();
                    let _ = writeln!(
                        std::io::stderr().lock(),
                        "mbank mcp: reading stdin failed: {message}"
                    );
                    return None;
                }
            }
            let line = std::mem::take(&mut self.line);
            match parse_line(&line) {
                Ok(Some(message)) => {
                    // Keep the allocation for the next line unless it was a big one.
                    if line.capacity() <= 64 * 1024 {
                        self.line = line;
                        self.line.clear();
                    }
                    return Some(message);
                }
                Ok(None) => {}
                Err(reply) => self.pending_reply = Some(reply),
            }
        }
    }

    async fn close(&mut self) -> Result<(), Self::Error> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn malformed_lines_get_parse_errors_and_foreign_json_invalid_request() {
        let truncated = parse_line(br#"{"jsonrpc":"2.0","id":7,"method":"tools/li"#).unwrap_err();
        let reply: Value = serde_json::from_slice(&truncated).unwrap();
        assert_eq!(reply["error"]["code"], PARSE_ERROR);
        assert_eq!(reply["id"], Value::Null);
        let foreign = parse_line(br#"{"id": 3, "hello": true}"#).unwrap_err();
        let reply: Value = serde_json::from_slice(&foreign).unwrap();
        assert_eq!(
            (reply["error"]["code"].as_i64(), reply["id"].as_i64()),
            (Some(INVALID_REQUEST), Some(3))
        );
        // Notifications are never answered, not even unknown ones.
        assert!(parse_line(br#"{"jsonrpc":"2.0","method":"$/lsp-thing"}"#).is_ok());
        assert!(parse_line(b"  \r").unwrap().is_none());
        let ping = parse_line(b"\xEF\xBB\xBF{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\r");
        assert!(matches!(ping, Ok(Some(_))));
    }

    #[tokio::test]
    async fn an_oversized_line_is_skipped_without_being_buffered() {
        let mut input = vec![b'x'; 100];
        input.extend_from_slice(b"\n{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}\n");
        let (mut transport, writer) = transport(std::io::Cursor::new(input), tokio::io::sink(), 50);
        assert!(matches!(transport.read_line().await, LineRead::Oversized));
        assert!(transport.line.capacity() <= 50);
        assert!(transport.receive().await.is_some());
        assert!(transport.pending_reply.is_none(), "the reply was queued");
        assert!(transport.receive().await.is_none());
        drop(transport);
        writer.await.unwrap();
    }
}
