/* html_asset.c - the HTML report's style and its one script (pan and zoom of the graphs). */
#include "analyze/report/html_int.h"

const char html_style[] =
    "body{font:14px/1.45 system-ui,sans-serif;margin:1.5em auto;max-width:1400px;"
    "padding:0 1em;color:#1a1a1a;background:#fff}\n"
    "h1{font-size:1.5em;margin:0 0 .3em}h2{font-size:1.25em;margin:1.6em 0 .4em;"
    "border-bottom:1px solid #ccc}h3{font-size:1.1em;margin:1.2em 0 .3em}"
    "h4{font-size:1em;margin:.9em 0 .2em}\n"
    "pre{background:#f6f6f4;padding:.8em;overflow-x:auto;font-size:12.5px;"
    "border:1px solid #e2e2dc}\n"
    "table{border-collapse:collapse;font-size:13px;margin:.3em 0}"
    "th,td{padding:.2em .55em;text-align:right;white-space:nowrap;vertical-align:top}"
    "th{background:#2b4a6f;color:#fff}\n"
    "td.l,th.l{text-align:left}td.w{white-space:normal;text-align:left;max-width:60em}"
    "tr:nth-child(even) td{background:#f3f5f8}\n"
    "table.kv th{text-align:left}table.kv td{text-align:left;white-space:normal}\n"
    ".warn{color:#a35200;font-weight:600}.bad{color:#c01818;font-weight:600}"
    ".order{color:#0b5cad;font-weight:600}.mtu{color:#8a1f8a;font-weight:600}\n"
    ".muted{color:#666}.why b{color:#333}code.fr{background:#eef1f5;padding:0 .2em;"
    "user-select:all}\n"
    "section.conn{border-top:2px solid #2b4a6f;margin-top:1.5em}"
    "figure.graph{margin:.4em 0}figure.graph svg{width:100%;max-width:1000px;height:auto;"
    "border:1px solid #ddd;touch-action:none}figure.graph svg:focus{outline:2px solid "
    "#0b5cad}\n"
    "details>summary{cursor:pointer;font-weight:600;margin:.6em 0}a{color:#0b5cad}\n";

/*
 * Every inline graph zooms along its time axis: the wheel zooms at the
 * pointer, a drag pans, a double click resets; focused (click or Tab),
 * + and - zoom, the arrows pan, 0 resets. A page address ending in
 * #t=A-B (seconds from each connection's first packet) opens every graph
 * on that window. The graph's <g class="zoom"> is scaled along x (strokes
 * keep their width: vector-effect), dots and counts scaled back, and the
 * time axis's ticks redrawn; nothing else changes, so without the script
 * each graph shows the whole connection. The script marks the page
 * <html data-zoom="N"> (N graphs it took), which the tests read.
 */
const char html_script[] =
    "(function(){'use strict';var NS='http://www.w3.org/2000/svg';\n"
    "function step(r){var x=r/10,m=Math.pow(10,Math.floor(Math.log10(x))),f=x/m;"
    "return(f<1.5?1:f<3?2:f<7?5:10)*m}\n"
    "function graph(svg,win){var p=svg.querySelector('g.plot'),z=p&&p.querySelector('g.zoom'),"
    "ax=svg.querySelector('g.xaxis');if(!z||!ax)return false;\n"
    "var D=p.dataset,T0=+D.t0,T1=+D.t1,X=+D.x,W=+D.w,Y=+D.y,H=+D.h,a=T0,b=T1,drag=null;\n"
    "function clamp(){var s=Math.min(Math.max(b-a,(T1-T0)*1e-6),T1-T0);a=Math.max(T0,"
    "Math.min(a,T1-s));b=a+s}\n"
    "function px(t){return X+(t-a)/(b-a)*W}\n"
    "function draw(){clamp();var k=(T1-T0)/(b-a),tx=X*(1-k)-k*W*(a-T0)/(T1-T0);\n"
    "z.setAttribute('transform',k>1.000001?'translate('+tx+' 0) scale('+k+' 1)':'');\n"
    "svg.classList.toggle('zoomed',k>1.000001);\n"
    "z.querySelectorAll('circle,text.count').forEach(function(e){var c=+(e.getAttribute('cx')"
    "||e.getAttribute('x'));e.setAttribute('transform',k>1.000001?'translate('+c+' 0) scale('"
    "+1/k+' 1) translate('+(-c)+' 0)':'')});\n"
    "while(ax.firstChild)ax.removeChild(ax.firstChild);var s=step(b-a),"
    "dec=Math.max(0,Math.min(9,-Math.floor(Math.log10(s)+1e-9)));\n"
    "for(var t=Math.ceil(a/s)*s;t<=b+s*1e-6;t+=s){var x=px(t),l=document.createElementNS(NS,"
    "'line'),n=document.createElementNS(NS,'text');\n"
    "l.setAttribute('class','grid');l.setAttribute('x1',x);l.setAttribute('x2',x);"
    "l.setAttribute('y1',Y);l.setAttribute('y2',Y+H);\n"
    "n.setAttribute('class','tick');n.setAttribute('x',x);n.setAttribute('y',Y+H+16);"
    "n.setAttribute('text-anchor','middle');n.textContent=t.toFixed(dec);ax.appendChild(l);"
    "ax.appendChild(n)}}\n"
    "function at(e){var q=svg.createSVGPoint();q.x=e.clientX;q.y=e.clientY;"
    "return q.matrixTransform(svg.getScreenCTM().inverse()).x}\n"
    "function zoom(f,x){var t=a+(Math.min(Math.max(x,X),X+W)-X)/W*(b-a);a=t-(t-a)/f;"
    "b=t+(b-t)/f;draw()}\n"
    "function pan(dt){a+=dt;b+=dt;draw()}\n"
    "svg.setAttribute('tabindex','0');\n"
    "svg.addEventListener('wheel',function(e){e.preventDefault();zoom(e.deltaY<0?1.25:0.8,"
    "at(e))},{passive:false});\n"
    "svg.addEventListener('pointerdown',function(e){drag={x:at(e),a:a,b:b};"
    "svg.setPointerCapture(e.pointerId)});\n"
    "svg.addEventListener('pointermove',function(e){if(!drag)return;"
    "var dt=(at(e)-drag.x)/W*(drag.b-drag.a);a=drag.a-dt;b=drag.b-dt;draw()});\n"
    "svg.addEventListener('pointerup',function(){drag=null});\n"
    "svg.addEventListener('dblclick',function(){a=T0;b=T1;draw()});\n"
    "svg.addEventListener('keydown',function(e){var c=X+W/2,k=e.key;"
    "if(k==='+'||k==='=')zoom(1.5,c);else if(k==='-')zoom(1/1.5,c);"
    "else if(k==='ArrowLeft')pan(-(b-a)/10);else if(k==='ArrowRight')pan((b-a)/10);"
    "else if(k==='0'){a=T0;b=T1;draw()}else return;e.preventDefault()});\n"
    "if(win){a=win[0];b=win[1];draw()}return true}\n"
    "var m=/[#&]t=([0-9.]+)-([0-9.]+)/.exec(location.hash),win=m&&+m[2]>+m[1]?[+m[1],+m[2]]"
    ":null,n=0;\n"
    "document.querySelectorAll('figure.graph svg').forEach(function(s){if(graph(s,win))n++});\n"
    "document.documentElement.setAttribute('data-zoom',String(n))})();\n";
