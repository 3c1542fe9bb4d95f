// A program that uses std::net links for VLIW-64 (the runtime has every socket call
// of the hermit ABI that std refers to) and its calls fail cleanly: connecting to a
// port nobody listens on is an error on the host (refused) and here (no network).
use std::io::Write;
use std::net::{Shutdown, TcpStream};

fn main() {
    match TcpStream::connect(("127.0.0.1", 1)) {
        Ok(mut s) => {
            let _ = s.write_all(b"hello");
            let _ = s.shutdown(Shutdown::Both);
            println!("connected?");
        }
        Err(_) => println!("connect failed, as expected"),
    }
    let parsed: std::net::SocketAddr = "10.0.0.1:8080".parse().unwrap();
    println!("{} port {}", parsed.ip(), parsed.port());
}
