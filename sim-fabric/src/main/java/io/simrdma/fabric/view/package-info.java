/**
 * Pictures of a run: a {@link io.simrdma.fabric.view.RunRecording} keeps what a fabric did (packets
 * and their fate, QP and endpoint state changes, completions), {@link io.simrdma.fabric.view.Ladder}
 * draws it as a text sequence diagram with one column per QP, and
 * {@link io.simrdma.fabric.view.HtmlView} writes it as one self-contained, zoomable web page in which
 * each packet can be clicked to show its headers.
 */
package io.simrdma.fabric.view;
