package io.simrdma.fabric.view;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * Writes {@link RunRecording}s as one self-contained web page: the same timeline as the
 * {@link Ladder}, drawn in SVG (a column per QP, an arrow per packet, a cross where one was lost,
 * state changes and completions as marks), zoomable (the buttons, or Ctrl and the mouse wheel), and
 * each packet clickable to show its headers and what happened to it. The page loads nothing: no
 * script, style sheet or font from anywhere else; it opens from a file in any browser.
 *
 * <p>The page's script fills {@code #summary} with the number of packets and drops it drew, and
 * selects the packet named by the address's fragment ({@code run.html#packet=3}), as a click does.
 *
 * <p>Thread safety: stateless; the recordings are read through their own lock.
 */
public final class HtmlView {

    private static final int LEFT = 120;
    private static final int LANE = 200;
    private static final int ROW = 22;
    private static final int TOP = 50;

    private HtmlView() {}

    /**
     * Writes the page of {@code runs} to {@code file} (created or replaced).
     *
     * @throws UncheckedIOException if the file cannot be written
     */
    public static void write(Path file, String title, List<RunRecording> runs) {
        try {
            Files.writeString(file, render(title, runs), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + file, e);
        }
    }

    /** The page of {@code runs}, as text. */
    public static String render(String title, List<RunRecording> runs) {
        StringBuilder svgs = new StringBuilder();
        StringBuilder data = new StringBuilder("[");
        int index = 0;
        for (RunRecording run : runs) {
            List<RunRecording.Lane> lanes = run.lanes();
            List<RunRecording.Event> events = run.events();
            int width = LEFT + lanes.size() * LANE + 40;
            int height = TOP + events.size() * ROW + 20;
            svgs.append("<section><h2>")
                    .append(xml(run.title()))
                    .append("</h2>\n<p class=\"note\">")
                    .append(run.packets())
                    .append(" packets, ")
                    .append(run.drops())
                    .append(" dropped; times in µs, ")
                    .append(run.virtualClock() ? "virtual time" : "time since start")
                    .append("</p>\n");
            svgs.append("<svg class=\"ladder\" viewBox=\"0 0 ")
                    .append(width)
                    .append(' ')
                    .append(height)
                    .append("\" width=\"")
                    .append(width)
                    .append("\" height=\"")
                    .append(height)
                    .append("\" data-w=\"")
                    .append(width)
                    .append("\" data-h=\"")
                    .append(height)
                    .append("\" xmlns=\"http://www.w3.org/2000/svg\">\n");
            for (int i = 0; i < lanes.size(); i++) {
                int x = x(i);
                svgs.append("<text class=\"lane\" x=\"")
                        .append(x)
                        .append("\" y=\"20\">")
                        .append(xml(lanes.get(i).title()))
                        .append("</text>");
                svgs.append("<line class=\"lifeline\" x1=\"")
                        .append(x)
                        .append("\" y1=\"30\" x2=\"")
                        .append(x)
                        .append("\" y2=\"")
                        .append(height)
                        .append("\"/>\n");
            }
            int row = 0;
            for (RunRecording.Event e : events) {
                int y = TOP + row * ROW;
                row++;
                svgs.append("<text class=\"time\" x=\"")
                        .append(LEFT - 20)
                        .append("\" y=\"")
                        .append(y + 4)
                        .append("\">")
                        .append(String.format("%.3f", e.time() / 1000.0))
                        .append("</text>");
                int from = x(lanes.indexOf(e.from()));
                int to = x(lanes.indexOf(e.to()));
                if (e.kind() == RunRecording.Kind.PACKET && from != to) {
                    packet(svgs, data, index++, e, from, to, y);
                } else {
                    String cls = e.kind() == RunRecording.Kind.COMPLETION ? "wc" : "state";
                    String text = e.kind() == RunRecording.Kind.PACKET ? e.label() : e.label();
                    int w = 8 + text.length() * 6;
                    svgs.append("<g class=\"")
                            .append(cls)
                            .append("\"><rect x=\"")
                            .append(from - w / 2)
                            .append("\" y=\"")
                            .append(y - 9)
                            .append("\" width=\"")
                            .append(w)
                            .append("\" height=\"16\" rx=\"4\"/><text x=\"")
                            .append(from)
                            .append("\" y=\"")
                            .append(y + 3)
                            .append("\">")
                            .append(xml(text))
                            .append("</text></g>\n");
                }
            }
            svgs.append("</svg></section>\n");
        }
        data.append(']');
        return PAGE.replace("%TITLE%", xml(title)).replace("%SVGS%", svgs).replace("%DATA%", data);
    }

    private static void packet(
            StringBuilder svg, StringBuilder data, int index, RunRecording.Event e, int from, int to, int y) {
        String cls = "pkt" + (e.dropped() ? " drop" : "") + (e.retransmission() ? " retx" : "")
                + (e.duplicate() || e.copy() ? " dup" : "");
        int end = e.dropped() ? to - Integer.signum(to - from) * 40 : to;
        svg.append("<g class=\"")
                .append(cls)
                .append("\" data-i=\"")
                .append(index)
                .append("\" tabindex=\"0\">");
        svg.append("<line class=\"hit\" x1=\"")
                .append(from)
                .append("\" y1=\"")
                .append(y)
                .append("\" x2=\"")
                .append(to)
                .append("\" y2=\"")
                .append(y)
                .append("\"/>");
        svg.append("<line class=\"arrow\" x1=\"")
                .append(from)
                .append("\" y1=\"")
                .append(y)
                .append("\" x2=\"")
                .append(end)
                .append("\" y2=\"")
                .append(y)
                .append('"')
                .append(e.dropped() ? "/>" : " marker-end=\"url(#head)\"/>");
        if (e.dropped()) {
            svg.append("<text class=\"x\" x=\"")
                    .append(end)
                    .append("\" y=\"")
                    .append(y + 5)
                    .append("\">✕</text>");
        }
        svg.append("<text x=\"")
                .append((from + to) / 2)
                .append("\" y=\"")
                .append(y - 4)
                .append("\">")
                .append(xml(e.label() + (e.duplicate() ? " (duplicate)" : "")))
                .append("</text></g>\n");
        if (index > 0) {
            data.append(',');
        }
        data.append("{\"t\":")
                .append(json(String.format("%.3f", e.time() / 1000.0)))
                .append(",\"label\":")
                .append(json(e.label()))
                .append(",\"from\":")
                .append(json(e.from().title()))
                .append(",\"to\":")
                .append(json(e.to().title()))
                .append(",\"notes\":[");
        for (int i = 0; i < e.notes().size(); i++) {
            data.append(i > 0 ? "," : "").append(json(e.notes().get(i)));
        }
        data.append("],\"headers\":[");
        for (int i = 0; i < e.headers().size(); i++) {
            HeaderFields.Field f = e.headers().get(i);
            data.append(i > 0 ? "," : "")
                    .append('[')
                    .append(json(f.header()))
                    .append(',')
                    .append(json(f.name()))
                    .append(',')
                    .append(json(f.value()))
                    .append(']');
        }
        data.append("]}");
    }

    private static int x(int lane) {
        return LEFT + lane * LANE + LANE / 2;
    }

    static String xml(String s) {
        StringBuilder b = new StringBuilder(s.length());
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '<':
                    b.append("&lt;");
                    break;
                case '>':
                    b.append("&gt;");
                    break;
                case '&':
                    b.append("&amp;");
                    break;
                case '"':
                    b.append("&quot;");
                    break;
                default:
                    b.append(c);
            }
        }
        return b.toString();
    }

    static String json(String s) {
        StringBuilder b = new StringBuilder(s.length() + 2).append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '"' || c == '\\') {
                b.append('\\').append(c);
            } else if (c < 0x20 || c == '<' || c == '>' || c == '&') {
                b.append(String.format("\\u%04x", (int) c));
            } else {
                b.append(c);
            }
        }
        return b.append('"').toString();
    }

    private static final String PAGE = """
            <!DOCTYPE html>
            <html lang="en"><head><meta charset="utf-8"><title>%TITLE%</title>
            <style>
            body { font-family: sans-serif; margin: 0; display: flex; height: 100vh; }
            #main { flex: 1; overflow: auto; padding: 0 12px; }
            #side { width: 340px; border-left: 1px solid #bbb; padding: 8px 12px; overflow: auto; background: #f7f7f7; }
            #bar { position: sticky; top: 0; background: #fff; padding: 6px 0; border-bottom: 1px solid #ddd; }
            button { font-size: 14px; min-width: 32px; }
            svg text { font-family: monospace; font-size: 11px; text-anchor: middle; }
            text.lane { font-weight: bold; font-size: 12px; }
            text.time { text-anchor: end; fill: #555; }
            line.lifeline { stroke: #999; stroke-dasharray: 4 3; }
            g.pkt line.arrow { stroke: #1f5fbf; stroke-width: 1.5; }
            g.pkt line.hit { stroke: transparent; stroke-width: 14; }
            g.pkt { cursor: pointer; }
            g.pkt text { fill: #123; }
            g.pkt.retx line.arrow { stroke: #c77800; stroke-dasharray: 6 3; }
            g.pkt.dup line.arrow { stroke: #8a2be2; }
            g.pkt.drop line.arrow { stroke: #c00; }
            g.pkt.drop text { fill: #c00; }
            text.x { fill: #c00; font-size: 16px; }
            g.pkt.selected line.arrow { stroke-width: 4; }
            g.state rect { fill: #e8f0e0; stroke: #5a8a3a; }
            g.wc rect { fill: #fff4d0; stroke: #b08a00; }
            table { border-collapse: collapse; font-size: 12px; }
            td { border-bottom: 1px solid #ddd; padding: 2px 6px; font-family: monospace; }
            p.note { color: #555; margin: 2px 0 6px 0; }
            </style></head>
            <body><div id="main">
            <div id="bar"><button id="zout" title="zoom out">−</button> <button id="zin" title="zoom in">+</button>
            <button id="zfit" title="100%">1:1</button> <span id="zoom">100%</span> · <span id="summary"></span></div>
            <h1>%TITLE%</h1>
            <svg width="0" height="0" style="position:absolute"><defs><marker id="head" viewBox="0 0 10 10" refX="10" refY="5" markerUnits="userSpaceOnUse"
              markerWidth="10" markerHeight="10" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" fill="#1f5fbf"/></marker></defs></svg>
            %SVGS%
            </div>
            <div id="side"><h3>Packet</h3><div id="details">Click a packet to see its headers.</div></div>
            <script>
            "use strict";
            const PKTS = %DATA%;
            let zoom = 1;
            function setZoom(z) {
              zoom = Math.min(8, Math.max(0.25, z));
              for (const s of document.querySelectorAll("svg.ladder")) {
                s.setAttribute("width", s.dataset.w * zoom);
                s.setAttribute("height", s.dataset.h * zoom);
              }
              document.getElementById("zoom").textContent = Math.round(zoom * 100) + "%";
            }
            function text(tag, s) { const e = document.createElement(tag); e.textContent = s; return e; }
            function select(i) {
              const p = PKTS[i];
              if (!p) { return; }
              for (const g of document.querySelectorAll("g.pkt.selected")) { g.classList.remove("selected"); }
              const g = document.querySelector('g.pkt[data-i="' + i + '"]');
              if (g) { g.classList.add("selected"); }
              const d = document.getElementById("details");
              d.replaceChildren();
              d.appendChild(text("p", "#" + i + " at " + p.t + " µs: " + p.label));
              d.appendChild(text("p", p.from + " → " + p.to));
              for (const n of p.notes) { d.appendChild(text("p", "• " + n)); }
              const t = document.createElement("table");
              t.id = "headers";
              for (const h of p.headers) {
                const r = document.createElement("tr");
                for (const c of h) { r.appendChild(text("td", c)); }
                t.appendChild(r);
              }
              d.appendChild(t);
            }
            for (const g of document.querySelectorAll("g.pkt")) {
              g.addEventListener("click", () => select(Number(g.dataset.i)));
              g.addEventListener("keydown", ev => { if (ev.key === "Enter") { select(Number(g.dataset.i)); } });
            }
            document.getElementById("zin").addEventListener("click", () => setZoom(zoom * 1.25));
            document.getElementById("zout").addEventListener("click", () => setZoom(zoom / 1.25));
            document.getElementById("zfit").addEventListener("click", () => setZoom(1));
            document.getElementById("main").addEventListener("wheel", ev => {
              if (ev.ctrlKey) { ev.preventDefault(); setZoom(zoom * (ev.deltaY < 0 ? 1.1 : 1 / 1.1)); }
            }, { passive: false });
            const drawn = document.querySelectorAll("g.pkt").length;
            const drops = document.querySelectorAll("g.pkt.drop").length;
            document.getElementById("summary").textContent = drawn + " packets, " + drops + " dropped";
            const m = /packet=(\\d+)/.exec(location.hash);
            if (m) { select(Number(m[1])); }
            document.body.dataset.rendered = "yes";
            </script>
            </body></html>
            """;
}
