# Homebrew formula: builds Herald from source.
class Herald < Formula
  desc "Self-hosted email delivery and audience service in one binary"
  homepage "https://github.com/heraldmail/herald"
  url "https://github.com/heraldmail/herald/archive/refs/tags/v0.1.0.tar.gz"
  sha256 "REPLACE_WITH_RELEASE_SHA256"
  license "MIT"

  depends_on "go" => :build

  def install
    ENV["CGO_ENABLED"] = "0"
    system "go", "build", *std_go_args(ldflags: "-s -w -X main.version=#{version}")
  end

  service do
    run [opt_bin/"herald", "serve"]
    environment_variables HERALD_DATA_DIR: var/"herald"
    keep_alive true
    log_path var/"log/herald.log"
    error_log_path var/"log/herald.log"
  end

  test do
    assert_match version.to_s, shell_output("#{bin}/herald version")
  end
end
